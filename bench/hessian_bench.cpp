// SPDX-License-Identifier: BSL-1.0
// bench/hessian_bench.cpp: second derivatives. H1, Rosenbrock's Hessian (S3) at n = 16 and 256; H2,
// log-sum-exp's (S4) at n = 16; H3, the Jacobian of the Bratu residual at n = 256; H4, the Hessian of a
// grid energy on 16 x 16 points. Inputs as the suite states them.
//
// The hand-written Hessians and Jacobians are the closed forms. H2's is dense, written as the n x n
// matrix tl::hessian returns; H1's (tridiagonal), H3's (tridiagonal) and H4's (the 5-point stencil
// plus a diagonal) are sparse, written as a loop filling the values in the pattern's row-major order,
// the order of tl::sparse_hessian's and tl::sparse_jacobian's values. Beside them, `tapeless` is the
// sparse transform, and `tapeless_dense` the dense one (tl::hessian, tl::jacobian: n sweeps or
// evaluations, an n x n result), checked at the pattern's entries. ADOL-C is their peer with its sparse
// drivers and ColPack's coloring (bench/peers/adolc_sparse.hpp): `adolc_sparse`, the values from a tape,
// pattern and coloring made once, and `adolc_sparse_setup`, the first call that makes them and evaluates
// once (the setup alone is its time less adolc_sparse's).
#include "harness.hpp"
#include "suite.hpp"

#include <tapeless/tapeless.hpp>

// After the others: ColPack's headers put `using namespace std;` in the global namespace.
#include "peers/adolc_sparse.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace tl = tapeless;

namespace {

template <std::size_t N>
using vec = tl::vector<double, N>;

template <std::size_t N>
struct h_in {
  vec<N> x;
};

/// N inputs lo + (hi - lo) u from a fresh stream: S3's (x = 2u - 1), S4's (4u - 2), H3's (0.1 u).
template <std::size_t N, int Lo, int Hi, int Scale = 1>
h_in<N> inputs() {
  tapeless_bench::input_stream u;
  h_in<N> in;
  for (auto& v : in.x) v = u.uniform(double(Lo) / Scale, double(Hi) / Scale);
  return in;
}

// --- H1: Rosenbrock. ------------------------------------------------------------------------------

template <std::size_t N>
constexpr auto rosenbrock = [](const auto& x) {
  auto head = tl::slice<0, N - 1>(x);
  auto tail = tl::slice<1, N - 1>(x);
  return tl::sum(100.0 * tl::square(tail - tl::square(head)) + tl::square(1.0 - head));
};

/// Row i holds (i, i - 1), (i, i), (i, i + 1): each term touches (i, i), (i, i + 1), (i + 1, i + 1).
template <std::size_t N>
TAPELESS_BENCH_KERNEL std::array<double, 3 * N - 2> rosenbrock_handwritten(const h_in<N>& in) {
  const auto& x = in.x;
  std::array<double, 3 * N - 2> h;
  std::size_t k = 0;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) h[k++] = -400.0 * x[i - 1];
    h[k++] = (i + 1 < N ? 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0 : 0.0) + (i > 0 ? 200.0 : 0.0);
    if (i + 1 < N) h[k++] = -400.0 * x[i];
  }
  return h;
}

template <std::size_t N>
TAPELESS_BENCH_KERNEL auto rosenbrock_tapeless(const h_in<N>& in) {
  return tl::sparse_hessian(rosenbrock<N>)(in.x);
}

template <std::size_t N>
TAPELESS_BENCH_KERNEL tl::matrix<double, N, N> rosenbrock_dense(const h_in<N>& in) {
  return tl::hessian(rosenbrock<N>)(in.x);
}

// --- H2: log-sum-exp, dense. ----------------------------------------------------------------------

constexpr std::size_t n2 = 16;

TAPELESS_BENCH_KERNEL tl::matrix<double, n2, n2> log_sum_exp_handwritten(const h_in<n2>& in) {
  const auto& x = in.x;
  const double m = *std::max_element(x.begin(), x.end());
  vec<n2> p;
  double s = 0;
  for (std::size_t i = 0; i < n2; ++i) s += p[i] = std::exp(x[i] - m);
  for (auto& e : p) e /= s;
  tl::matrix<double, n2, n2> h(tl::detail::uninitialized);
  for (std::size_t i = 0; i < n2; ++i)
    for (std::size_t j = 0; j < n2; ++j) h(i, j) = (i == j ? p[i] : 0.0) - p[i] * p[j];
  return h;
}

TAPELESS_BENCH_KERNEL tl::matrix<double, n2, n2> log_sum_exp_tapeless(const h_in<n2>& in) {
  return tl::hessian([](const auto& x) { return tl::log_sum_exp(x); })(in.x);
}

// --- H3: the Bratu residual's Jacobian. -----------------------------------------------------------

constexpr std::size_t n3 = 256;

/// c_i = x[i-1] - 2 x[i] + x[i+1] + h^2 exp(x[i]), with x[-1] = x[n] = 0 and h = 1 / (n + 1).
constexpr auto bratu = [](const auto& x) {
  constexpr double h = 1.0 / (n3 + 1);
  const vec<1> zero{};
  return tl::concat(zero, tl::slice<0, n3 - 1>(x)) - 2.0 * x + tl::concat(tl::slice<1, n3 - 1>(x), zero) +
         h * h * tl::exp(x);
};

TAPELESS_BENCH_KERNEL std::array<double, 3 * n3 - 2> bratu_handwritten(const h_in<n3>& in) {
  constexpr double h2 = 1.0 / ((n3 + 1.0) * (n3 + 1.0));
  std::array<double, 3 * n3 - 2> j;
  std::size_t k = 0;
  for (std::size_t i = 0; i < n3; ++i) {
    if (i > 0) j[k++] = 1.0;
    j[k++] = -2.0 + h2 * std::exp(in.x[i]);
    if (i + 1 < n3) j[k++] = 1.0;
  }
  return j;
}

TAPELESS_BENCH_KERNEL auto bratu_tapeless(const h_in<n3>& in) { return tl::sparse_jacobian(bratu)(in.x); }

TAPELESS_BENCH_KERNEL tl::matrix<double, n3, n3> bratu_dense(const h_in<n3>& in) { return tl::jacobian(bratu)(in.x); }

// --- H4: a grid energy's Hessian. -----------------------------------------------------------------

constexpr std::size_t g4 = 16;
using grid = tl::matrix<double, g4, g4>;

struct grid_in {
  grid X;
};

grid_in grid_inputs() {
  tapeless_bench::input_stream u;
  grid_in in;
  for (auto& v : in.X) v = u.uniform(-1.0, 1.0);
  return in;
}

/// Half the squared differences between neighbouring points (right and down), plus sum cosh(X).
constexpr auto grid_energy = [](const auto& X) {
  auto right = tl::block<0, 1, g4, g4 - 1>(X) - tl::block<0, 0, g4, g4 - 1>(X);
  auto down = tl::block<1, 0, g4 - 1, g4>(X) - tl::block<0, 0, g4 - 1, g4>(X);
  return 0.5 * (tl::sum(tl::square(right)) + tl::sum(tl::square(down))) + tl::sum(tl::cosh(X));
};

constexpr std::size_t grid_entries = g4 * g4 + 4 * g4 * (g4 - 1);

/// Row a holds its upper, left, own, right and lower neighbours' entries, in that (column) order:
/// -1 for each neighbour, the number of neighbours plus cosh(X_a) on the diagonal.
TAPELESS_BENCH_KERNEL std::array<double, grid_entries> grid_handwritten(const grid_in& in) {
  std::array<double, grid_entries> h;
  std::size_t k = 0;
  for (std::size_t i = 0; i < g4; ++i)
    for (std::size_t j = 0; j < g4; ++j) {
      const double neighbours = double((i > 0) + (j > 0) + (j + 1 < g4) + (i + 1 < g4));
      if (i > 0) h[k++] = -1.0;
      if (j > 0) h[k++] = -1.0;
      h[k++] = neighbours + std::cosh(in.X(i, j));
      if (j + 1 < g4) h[k++] = -1.0;
      if (i + 1 < g4) h[k++] = -1.0;
    }
  return h;
}

TAPELESS_BENCH_KERNEL auto grid_tapeless(const grid_in& in) { return tl::sparse_hessian(grid_energy)(in.X); }

TAPELESS_BENCH_KERNEL tl::matrix<double, g4 * g4, g4 * g4> grid_dense(const grid_in& in) {
  return tl::hessian(grid_energy)(in.X);
}

// --- The dense results, checked at the pattern's entries. -----------------------------------------

/// Kernel's dense result at the entries of Sparse's result, in their order: what the check compares
/// with the hand-written values (the dense kernel itself is what is timed).
template <auto Sparse, auto Dense, class In>
std::vector<double> dense_at_pattern(const In& in) {
  using H = std::remove_cvref_t<decltype(Sparse(in))>;
  const auto d = Dense(in);
  std::vector<double> out(H::nonzeros());
  for (std::size_t k = 0; k < H::nonzeros(); ++k) out[k] = d(H::row_index(k), H::col_index(k));
  return out;
}

/// The entry of a dense kernel in a sparse case: timed and counted as Dense, checked at the pattern.
template <auto Sparse, auto Dense, auto Inputs>
tapeless_bench::entry_t dense_entry(std::string name) {
  auto e = tapeless_bench::entry<Dense, Inputs>(std::move(name));
  e.gradient = [] { return dense_at_pattern<Sparse, Dense>(Inputs()); };
  return e;
}

// --- ADOL-C's sparse drivers, with ColPack's coloring (bench/peers/adolc_sparse.hpp). --------------
//
// Each sparse case for ADOL-C: its name, the number of values of its result, the differentiated numbers
// of its inputs, and its function, generic over the number type (double, ADOL-C's adouble): a number
// for a Hessian, a std::array of them for a Jacobian.

template <std::size_t N>
struct rosenbrock_adolc {
  static std::string name() { return "H1_rosenbrock_hessian_" + std::to_string(N); }
  static constexpr std::size_t nonzeros = 3 * N - 2;
  static std::array<double, N> numbers(const h_in<N>& in) { return tapeless_bench::numbers(in.x); }
  static constexpr auto f = [](const auto& x) {
    using T = std::remove_cvref_t<decltype(x[0])>;
    T value = 0.0;
    for (std::size_t i = 0; i + 1 < N; ++i) {
      const T a = x[i + 1] - x[i] * x[i];
      const T b = 1.0 - x[i];
      value += 100.0 * (a * a) + b * b;
    }
    return value;
  };
};

struct bratu_adolc {
  static std::string name() { return "H3_bratu_jacobian"; }
  static constexpr std::size_t nonzeros = 3 * n3 - 2;
  static std::array<double, n3> numbers(const h_in<n3>& in) { return tapeless_bench::numbers(in.x); }
  static constexpr auto f = [](const auto& x) {
    using T = std::remove_cvref_t<decltype(x[0])>;
    using std::exp;
    constexpr double h2 = 1.0 / ((n3 + 1.0) * (n3 + 1.0));
    std::array<T, n3> c;
    for (std::size_t i = 0; i < n3; ++i) {
      c[i] = -2.0 * x[i] + h2 * exp(x[i]);
      if (i > 0) c[i] += x[i - 1];
      if (i + 1 < n3) c[i] += x[i + 1];
    }
    return c;
  };
};

struct grid_adolc {
  static std::string name() { return "H4_grid_hessian"; }
  static constexpr std::size_t nonzeros = grid_entries;
  static std::array<double, g4 * g4> numbers(const grid_in& in) { return tapeless_bench::numbers(in.X); }
  static constexpr auto f = [](const auto& x) {  // X row-major
    using T = std::remove_cvref_t<decltype(x[0])>;
    using std::cosh;
    T squares = 0.0, coshes = 0.0;
    for (std::size_t i = 0; i < g4; ++i)
      for (std::size_t j = 0; j < g4; ++j) {
        const std::size_t a = i * g4 + j;
        if (j + 1 < g4) {
          const T right = x[a + 1] - x[a];
          squares += right * right;
        }
        if (i + 1 < g4) {
          const T down = x[a + g4] - x[a];
          squares += down * down;
        }
        coshes += cosh(x[a]);
      }
    return T(0.5 * squares + coshes);
  };
};

using adolc_sparse = tapeless_bench::adolc_sparse::peer<tapeless_bench::adolc_sparse::mode::reuse>;
using adolc_sparse_setup = tapeless_bench::adolc_sparse::peer<tapeless_bench::adolc_sparse::mode::setup>;

template <class Case, auto Inputs, class Peer, int Id>
TAPELESS_BENCH_KERNEL std::array<double, Case::nonzeros> adolc_kernel(const decltype(Inputs())& in) {
  return Peer::template derivative<Case::nonzeros>(Id, Case::numbers(in), Case::f);
}

/// Records the case's tape (and, for adolc_sparse, makes the first call), and states the coloring's
/// number of colors in the run's context.
template <class Case, auto Inputs, class Peer, int Id>
void adolc_prepare() {
  Peer::prepare(Id, Case::numbers(Inputs()), Case::f);
  if constexpr (std::is_same_v<Peer, adolc_sparse>)
    benchmark::AddCustomContext("colors " + Case::name() + "/adolc_sparse", std::to_string(Peer::colors(Id)));
}

/// The entry `<case>/adolc_sparse` or `<case>/adolc_sparse_setup`; Id numbers the case's tapes.
template <class Case, auto Inputs, class Peer, int Id>
tapeless_bench::entry_t adolc_entry() {
  return tapeless_bench::entry<adolc_kernel<Case, Inputs, Peer, Id>, Inputs>(
      Case::name() + "/" + Peer::name, tapeless_bench::exact, &adolc_prepare<Case, Inputs, Peer, Id>);
}

}  // namespace

int main(int argc, char** argv) {
  using tapeless_bench::entry;
  constexpr auto in16 = inputs<16, -1, 1>;
  constexpr auto in256 = inputs<256, -1, 1>;
  constexpr auto lse_in = inputs<n2, -2, 2>;
  constexpr auto bratu_in = inputs<n3, 0, 1, 10>;
  // Each result, tapeless's and ADOL-C's, is checked against the hand-written one before timing (harness.hpp).
  return tapeless_bench::main(
      argc, argv, nullptr,
      {
          entry<rosenbrock_handwritten<16>, in16>("H1_rosenbrock_hessian_16/handwritten"),
          entry<rosenbrock_tapeless<16>, in16>("H1_rosenbrock_hessian_16/tapeless"),
          dense_entry<rosenbrock_tapeless<16>, rosenbrock_dense<16>, in16>("H1_rosenbrock_hessian_16/tapeless_dense"),
          adolc_entry<rosenbrock_adolc<16>, in16, adolc_sparse, 0>(),
          adolc_entry<rosenbrock_adolc<16>, in16, adolc_sparse_setup, 0>(),
          entry<rosenbrock_handwritten<256>, in256>("H1_rosenbrock_hessian_256/handwritten"),
          entry<rosenbrock_tapeless<256>, in256>("H1_rosenbrock_hessian_256/tapeless"),
          dense_entry<rosenbrock_tapeless<256>, rosenbrock_dense<256>, in256>(
              "H1_rosenbrock_hessian_256/tapeless_dense"),
          adolc_entry<rosenbrock_adolc<256>, in256, adolc_sparse, 1>(),
          adolc_entry<rosenbrock_adolc<256>, in256, adolc_sparse_setup, 1>(),
          entry<log_sum_exp_handwritten, lse_in>("H2_log_sum_exp_hessian_16/handwritten"),
          entry<log_sum_exp_tapeless, lse_in>("H2_log_sum_exp_hessian_16/tapeless"),
          entry<bratu_handwritten, bratu_in>("H3_bratu_jacobian/handwritten"),
          entry<bratu_tapeless, bratu_in>("H3_bratu_jacobian/tapeless"),
          dense_entry<bratu_tapeless, bratu_dense, bratu_in>("H3_bratu_jacobian/tapeless_dense"),
          adolc_entry<bratu_adolc, bratu_in, adolc_sparse, 2>(),
          adolc_entry<bratu_adolc, bratu_in, adolc_sparse_setup, 2>(),
          entry<grid_handwritten, grid_inputs>("H4_grid_hessian/handwritten"),
          entry<grid_tapeless, grid_inputs>("H4_grid_hessian/tapeless"),
          dense_entry<grid_tapeless, grid_dense, grid_inputs>("H4_grid_hessian/tapeless_dense"),
          adolc_entry<grid_adolc, grid_inputs, adolc_sparse, 3>(),
          adolc_entry<grid_adolc, grid_inputs, adolc_sparse_setup, 3>(),
      });
}
