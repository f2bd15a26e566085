// SPDX-License-Identifier: BSL-1.0
// bench/peers/adolc_sparse.hpp: ADOL-C's sparse Hessians and Jacobians, colored by ColPack
// (libcolpack-dev), as the peer of tl::sparse_hessian and tl::sparse_jacobian, in two modes:
//   adolc_sparse::peer<mode::reuse>  `<case>/adolc_sparse`: what ADOL-C's sparse_hess and sparse_jac do
//                                    when called again (repeat = 1): the compressed derivative from the
//                                    case's tape, then ColPack's recovery of its entries. The tape, the
//                                    pattern, the coloring, the seed and the buffers come from a first
//                                    call before the checks and the timing (prepare).
//   adolc_sparse::peer<mode::setup>  `<case>/adolc_sparse_setup`: their first call (repeat = 0) on the
//                                    tape recorded before timing: the pattern, the coloring, the seed and
//                                    the buffers, then one evaluation as above, whose values are checked
//                                    as every other library's. The setup alone is its time less
//                                    adolc_sparse's.
//
// Debian 12's libadolc is built without ColPack, and its sparse_hess and sparse_jac exit ("can only be
// used if linked with ColPack"). So what they do is made here of the ADOL-C drivers they call, which need
// no ColPack, and of ColPack's own calls, with the options below (ADOL-C 2.7.2, sparse/sparsedrivers.cpp):
//   Hessian   hess_pat (safe mode); GraphColoringInterface's "STAR" coloring in "SMALLEST_LAST" order,
//             and its seed S; H S by hov_wk_forward and hos_ov_reverse, the sweeps of hess_mat, into
//             buffers allocated once, as sparse_hess keeps them; HessianRecovery's direct recovery. That
//             is sparse_hess with options {0, 1}.
//   Jacobian  jac_pat (index domains, safe mode); BipartiteGraphPartialColoringInterface's
//             "COLUMN_PARTIAL_DISTANCE_TWO" coloring in "SMALLEST_LAST" order, and its seed S; J S by
//             fov_forward; JacobianRecovery1D's column recovery. That is sparse_jac with options
//             {0, 0, 0, 0}.
// ColPack recovers (row, column, value) triplets, of one triangle for a Hessian. The peer returns the
// values in the pattern's row-major order, both triangles of a Hessian: the order of tl::sparse_hessian's
// and tl::sparse_jacobian's values and of the hand-written ones. Where each value comes from is found by
// sorting, once, in the first call.
//
// Debian's ColPack is built with OpenMP, and GenerateSeedJacobian then colors a Jacobian in parallel,
// with a thread per core, whose threads wait on each other at each step: on 2 cores busy with other
// work, 14 to 16 ms for the 256 columns of H3, where the sequential coloring, which GenerateSeedJacobian
// runs in a ColPack built without OpenMP, takes 55 to 75 us. The Jacobian is colored by that sequential
// code (ColumnSmallestLastOrdering, then PartialDistanceTwoColumnColoring_serial), so that it runs on
// one core as every other benchmark. The star coloring of a Hessian is sequential in either build.
//
// ADOL-C keeps its tapes in global state, by tag: case c owns tag 2c (the tape of mode::reuse) and
// 2c + 1 (mode::setup's), as in adolc.hpp; a bench file that runs both headers' peers numbers its
// cases apart. The tapes are recorded by adolc::record_sized (adolc.hpp).
//
// ColPack's headers put `using namespace std;` and macros such as _TRUE and _FALSE in the global
// namespace: a bench file includes this header after its other headers.
#pragma once

#include <ColPack/ColPackHeaders.h>  // system headers (bench/CMakeLists.txt): their warnings are not ours
#include <adolc/adolc.h>

#include "adolc.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

namespace tapeless_bench::adolc_sparse {

enum class mode { reuse, setup };

/// The tag of case `case_id`'s tape in mode M (see above).
constexpr short tag(int case_id, mode m) { return static_cast<short>(2 * case_id + (m == mode::setup ? 1 : 0)); }

namespace detail {

/// Stops the run when an ADOL-C driver returns an error: < 0, the input takes other branches than the
/// tape's (never here: each tape is read at the inputs it was recorded at).
inline void check(int rc, const char* driver, short tape) {
  if (rc >= 0) return;
  std::fprintf(stderr, "ADOL-C %s on tape %d returned %d\n", driver, tape, rc);
  std::abort();
}

/// A dense rows x cols array of doubles, as ADOL-C's drivers and ColPack's recoveries take it (double**).
class array2 {
 public:
  array2() = default;
  array2(std::size_t rows, std::size_t cols) : values_(rows * cols), rows_(rows) {
    for (std::size_t i = 0; i < rows; ++i) rows_[i] = values_.data() + i * cols;
  }
  double** get() { return rows_.data(); }

 private:
  std::vector<double> values_;
  std::vector<double*> rows_;
};

/// A dense a x b x c array of doubles, as ADOL-C's higher-order drivers take it (double***).
class array3 {
 public:
  array3() = default;
  array3(std::size_t a, std::size_t b, std::size_t c) : values_(a * b * c), rows_(a * b), planes_(a) {
    for (std::size_t k = 0; k < a * b; ++k) rows_[k] = values_.data() + k * c;
    for (std::size_t i = 0; i < a; ++i) planes_[i] = rows_.data() + i * b;
  }
  double*** get() { return planes_.data(); }

 private:
  std::vector<double> values_;
  std::vector<double*> rows_;
  std::vector<double**> planes_;
};

/// A sparsity pattern as ADOL-C's drivers return it: row i holds the columns p[i][1] .. p[i][p[i][0]],
/// in a block ADOL-C allocates with malloc.
class pattern {
 public:
  explicit pattern(std::size_t rows) : rows_(rows, nullptr) {}
  pattern(const pattern&) = delete;
  pattern& operator=(const pattern&) = delete;
  ~pattern() {
    for (unsigned int* row : rows_) std::free(row);
  }
  unsigned int** get() { return rows_.data(); }
  [[nodiscard]] std::size_t rows() const { return rows_.size(); }
  [[nodiscard]] std::size_t entries() const {
    std::size_t count = 0;
    for (const unsigned int* row : rows_) count += row[0];
    return count;
  }

 private:
  std::vector<unsigned int*> rows_;
};

/// Where each entry of pattern p, in row-major order, is among the recovered triplets (rows[k],
/// cols[k]): for a symmetric matrix, of which one triangle is recovered, an entry of the other triangle
/// is found as its mirror image.
inline std::vector<std::size_t> row_major_order(pattern& p, const std::vector<unsigned int>& rows,
                                                const std::vector<unsigned int>& cols, bool symmetric) {
  using position = std::pair<unsigned int, unsigned int>;
  std::vector<std::size_t> recovered(rows.size());
  std::iota(recovered.begin(), recovered.end(), std::size_t{0});
  std::sort(recovered.begin(), recovered.end(), [&](std::size_t a, std::size_t b) {
    return position{rows[a], cols[a]} < position{rows[b], cols[b]};
  });
  std::vector<position> entries;
  for (unsigned int i = 0; i < p.rows(); ++i)
    for (unsigned int j = 1; j <= p.get()[i][0]; ++j) entries.emplace_back(i, p.get()[i][j]);
  std::sort(entries.begin(), entries.end());
  std::vector<std::size_t> order;
  order.reserve(entries.size());
  for (auto [i, j] : entries) {
    const position at = symmetric && j < i ? position{j, i} : position{i, j};
    const auto found = std::lower_bound(recovered.begin(), recovered.end(), at, [&](std::size_t k, const position& v) {
      return position{rows[k], cols[k]} < v;
    });
    if (found == recovered.end() || position{rows[*found], cols[*found]} != at) {
      std::fprintf(stderr, "ColPack recovered no entry (%u, %u) of the pattern\n", at.first, at.second);
      std::abort();
    }
    order.push_back(*found);
  }
  return order;
}

}  // namespace detail

/// What both drivers keep of the entries ColPack recovers, and how they are read in the pattern's
/// row-major order; Driver's compute(x) fills them.
template <class Driver>
class recovered_entries {
 public:
  /// The next calls of sparse_hess and sparse_jac: the nonzeros at x, into out, in the pattern's order.
  void evaluate(const double* x, double* out) {
    static_cast<Driver*>(this)->compute(x);
    gather(out);
  }

  /// The nonzeros of the last evaluation, into out, in the pattern's row-major order.
  void gather(double* out) const {
    for (std::size_t k = 0; k < order_.size(); ++k) out[k] = values_[order_[k]];
  }

  [[nodiscard]] std::size_t nonzeros() const { return order_.size(); }
  [[nodiscard]] int colors() const { return colors_; }

 protected:
  /// Room for `entries` recovered triplets.
  void make_room(std::size_t entries) {
    rows_.resize(entries);
    cols_.resize(entries);
    values_.resize(entries);
  }

  int colors_ = 0;
  std::vector<unsigned int> rows_, cols_;
  std::vector<double> values_;      // the recovered triplets
  std::vector<std::size_t> order_;  // the recovered entry of each of the pattern's, in row-major order
};

/// ADOL-C's sparse Hessian of the function of n inputs on a tape, as sparse_hess keeps it between calls.
class hessian : public recovered_entries<hessian> {
 public:
  /// sparse_hess's first call at x: the pattern, the coloring and its seed, the buffers, one evaluation.
  hessian(short tape, const double* x, int n) : tape_(tape), n_(n), pattern_(static_cast<std::size_t>(n)) {
    detail::check(hess_pat(tape, n, x, pattern_.get(), 0), "hess_pat", tape);
    coloring_ = std::make_unique<ColPack::GraphColoringInterface>(SRC_MEM_ADOLC, pattern_.get(), n);
    double** seed = nullptr;  // n x colors, ColPack's: freed with the coloring
    int seed_rows = 0;
    coloring_->GenerateSeedHessian(&seed, &seed_rows, &colors_, "SMALLEST_LAST", "STAR");
    const auto un = static_cast<std::size_t>(n), p = static_cast<std::size_t>(colors_);
    tangents_ = detail::array3(un, p, 1);
    for (std::size_t i = 0; i < un; ++i)
      for (std::size_t l = 0; l < p; ++l) tangents_.get()[i][l][0] = seed[i][l];
    forward_ = detail::array3(1, p, 1);
    adjoints_ = detail::array3(p, un, 2);
    weights_ = detail::array2(1, 2);
    weights_.get()[0][0] = 1.0;  // the weight of the one dependent; 0 for its first-order coefficient
    compressed_ = detail::array2(un, p);
    std::size_t upper = 0;  // the entries on and above the diagonal, which ColPack recovers
    for (std::size_t i = 0; i < un; ++i)
      for (unsigned int j = 1; j <= pattern_.get()[i][0]; ++j) upper += pattern_.get()[i][j] >= i;
    make_room(upper);
    compute(x);
    order_ = detail::row_major_order(pattern_, rows_, cols_, true);
  }

 private:
  friend recovered_entries<hessian>;

  /// H S, then ColPack's recovery of the upper triangle's entries from it.
  void compute(const double* x) {
    double y = 0;
    detail::check(hov_wk_forward(tape_, 1, n_, 1, 2, colors_, x, tangents_.get(), &y, forward_.get()), "hov_wk_forward",
                  tape_);
    detail::check(hos_ov_reverse(tape_, 1, n_, 1, colors_, weights_.get(), adjoints_.get()), "hos_ov_reverse", tape_);
    for (int l = 0; l < colors_; ++l)
      for (int i = 0; i < n_; ++i) compressed_.get()[i][l] = adjoints_.get()[l][i][1];
    unsigned int* rows = rows_.data();
    unsigned int* cols = cols_.data();
    double* values = values_.data();
    recovery_.DirectRecover_CoordinateFormat_usermem(coloring_.get(), compressed_.get(), pattern_.get(), &rows, &cols,
                                                     &values);
  }

  short tape_;
  int n_;
  detail::pattern pattern_;
  std::unique_ptr<ColPack::GraphColoringInterface> coloring_;
  ColPack::HessianRecovery recovery_;
  detail::array3 tangents_;    // the seed S, n x colors x 1: hov_wk_forward's first-order directions
  detail::array3 forward_;     // hov_wk_forward's dependent coefficients, 1 x colors x 1 (not read)
  detail::array3 adjoints_;    // hos_ov_reverse's result, colors x n x 2: H S in [l][i][1]
  detail::array2 weights_;     // hos_ov_reverse's weights, 1 x 2
  detail::array2 compressed_;  // H S, n x colors, as ColPack's recovery takes it
};

/// ADOL-C's sparse Jacobian of the function of n inputs and m outputs on a tape, as sparse_jac keeps it
/// between calls.
class jacobian : public recovered_entries<jacobian> {
 public:
  /// sparse_jac's first call at x: the pattern, the coloring and its seed, the buffers, one evaluation.
  jacobian(short tape, const double* x, int m, int n)
      : tape_(tape), m_(m), n_(n), pattern_(static_cast<std::size_t>(m)) {
    std::array<int, 3> options{0, 0, 0};  // index domains, safe mode, (bit pattern direction: unused)
    detail::check(jac_pat(tape, m, n, x, pattern_.get(), options.data()), "jac_pat", tape);
    coloring_ = std::make_unique<ColPack::BipartiteGraphPartialColoringInterface>(SRC_MEM_ADOLC, pattern_.get(), m, n);
    // What GenerateSeedJacobian(..., "SMALLEST_LAST", "COLUMN_PARTIAL_DISTANCE_TWO") runs without
    // OpenMP (see above).
    coloring_->ColumnSmallestLastOrdering();
    coloring_->PartialDistanceTwoColumnColoring_serial();
    int seed_rows = 0;
    seed_ = coloring_->GetSeedMatrix(&seed_rows, &colors_);  // n x colors, freed with the coloring
    compressed_ = detail::array2(static_cast<std::size_t>(m), static_cast<std::size_t>(colors_));
    y_.resize(static_cast<std::size_t>(m));
    make_room(pattern_.entries());
    compute(x);
    order_ = detail::row_major_order(pattern_, rows_, cols_, false);
  }

 private:
  friend recovered_entries<jacobian>;

  /// J S, then ColPack's recovery of the entries from it.
  void compute(const double* x) {
    detail::check(fov_forward(tape_, m_, n_, colors_, x, seed_, y_.data(), compressed_.get()), "fov_forward", tape_);
    unsigned int* rows = rows_.data();
    unsigned int* cols = cols_.data();
    double* values = values_.data();
    recovery_.RecoverD2Cln_CoordinateFormat_usermem(coloring_.get(), compressed_.get(), pattern_.get(), &rows, &cols,
                                                    &values);
  }

  short tape_;
  int m_, n_;
  detail::pattern pattern_;
  std::unique_ptr<ColPack::BipartiteGraphPartialColoringInterface> coloring_;
  double** seed_ = nullptr;
  ColPack::JacobianRecovery1D recovery_;
  detail::array2 compressed_;  // J S, m x colors
  std::vector<double> y_;      // the function's values, which fov_forward computes beside J S
};

namespace detail {

/// The sparse derivative of f, from a const std::array<T, N>&: a Hessian where f returns a number, a
/// Jacobian where it returns a std::array of them.
template <std::size_t N, class F>
using derivative_t =
    std::conditional_t<argument_list<std::invoke_result_t<const F&, const std::array<double, N>&>>, jacobian, hessian>;

/// The first call of a D, on the tape of a function of type F, at x.
template <class D, class F, std::size_t N>
std::unique_ptr<D> first_call(short tape, const std::array<double, N>& x) {
  if constexpr (std::is_same_v<D, hessian>) {
    return std::make_unique<hessian>(tape, x.data(), static_cast<int>(N));
  } else {
    constexpr auto m = std::tuple_size_v<std::invoke_result_t<const F&, const std::array<double, N>&>>;
    return std::make_unique<jacobian>(tape, x.data(), static_cast<int>(m), static_cast<int>(N));
  }
}

/// mode::reuse's derivatives, by case (prepare makes them).
template <class D>
std::vector<std::unique_ptr<D>>& reused() {
  static std::vector<std::unique_ptr<D>> derivatives;
  return derivatives;
}

/// The number of colors of each case's coloring, by case (mode::reuse's prepare finds them).
inline std::vector<int>& colors() {
  static std::vector<int> counts;
  return counts;
}

/// v[i], which v grows to hold.
template <class T>
T& slot(std::vector<T>& v, int i) {
  const auto at = static_cast<std::size_t>(i);
  if (v.size() <= at) v.resize(at + 1);
  return v[at];
}

/// Stops the run when a pattern holds other than the K nonzeros of the case's result.
inline void check_nonzeros(std::size_t nonzeros, std::size_t k, short tape) {
  if (nonzeros == k) return;
  std::fprintf(stderr, "ADOL-C's pattern on tape %d has %zu nonzeros, the case's %zu\n", tape, nonzeros, k);
  std::abort();
}

}  // namespace detail

template <mode M>
struct peer {
  static constexpr const char* name = M == mode::reuse ? "adolc_sparse" : "adolc_sparse_setup";

  // Both modes record their tape before timing; mode::reuse also makes the first call there.
  template <std::size_t N, class F>
  static void prepare(int case_id, const std::array<double, N>& x, const F& f) {
    const short t = tag(case_id, M);
    adolc::record_sized(t, x, f);
    if constexpr (M == mode::reuse) {
      auto& d = detail::slot(detail::reused<detail::derivative_t<N, F>>(), case_id);
      d = detail::first_call<detail::derivative_t<N, F>, F>(t, x);
      detail::slot(detail::colors(), case_id) = d->colors();
    }
  }

  /// The K nonzeros of f's Hessian or Jacobian at x, in the pattern's row-major order.
  template <std::size_t K, std::size_t N, class F>
  static std::array<double, K> derivative(int case_id, const std::array<double, N>& x, const F& /*f*/) {
    using D = detail::derivative_t<N, F>;
    std::array<double, K> out;
    if constexpr (M == mode::reuse) {
      D& d = *detail::reused<D>()[static_cast<std::size_t>(case_id)];
      detail::check_nonzeros(d.nonzeros(), K, tag(case_id, M));
      d.evaluate(x.data(), out.data());
    } else {
      const auto d = detail::first_call<D, F>(tag(case_id, M), x);
      detail::check_nonzeros(d->nonzeros(), K, tag(case_id, M));
      d->gather(out.data());
    }
    return out;
  }

  /// How many colors ColPack's coloring of case `case_id` took, the directions of each evaluation,
  /// once mode::reuse's prepare has run.
  static int colors(int case_id) { return detail::colors().at(static_cast<std::size_t>(case_id)); }
};

}  // namespace tapeless_bench::adolc_sparse
