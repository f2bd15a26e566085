// SPDX-License-Identifier: BSL-1.0
// tl::hessian_pattern, tl::jacobian_pattern, tl::sparse_hessian and tl::sparse_jacobian
// (transforms/sparse_derivatives.hpp): patterns of sums, products, elementwise chains, slices, blocks,
// matmul, reductions and branches as static_asserts; the colors of banded and stencil patterns; every
// sparse derivative against the dense transform, entry by entry, at seeded random points (and the
// pattern holding every entry the dense one finds nonzero), against closed forms and against central
// differences of the gradient; sizes 1 and 2; constant evaluation; no allocation. Sums of elementwise
// terms (sweep/elementwise_terms.hpp), taken element by element, against the sweep by colors too, and
// which functions are taken that way.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <higher_order_check.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

namespace tl = tapeless;

namespace {

template <std::size_t N>
constexpr auto rosenbrock = [](const auto& x) {
  auto head = tl::slice<0, N - 1>(x);
  auto tail = tl::slice<1, N - 1>(x);
  return tl::sum(100.0 * tl::square(tail - tl::square(head)) + tl::square(1.0 - head));
};

// Rosenbrock's Hessian by hand: tridiagonal.
template <std::size_t N>
tl::matrix<double, N, N> rosenbrock_hessian(const tl::vector<double, N>& x) {
  tl::matrix<double, N, N> h{};
  for (std::size_t i = 0; i + 1 < N; ++i) {
    h(i, i) += 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
    h(i, i + 1) = h(i + 1, i) = -400.0 * x[i];
    h(i + 1, i + 1) += 200.0;
  }
  return h;
}

// The Bratu residual: c_i = x[i-1] - 2 x[i] + x[i+1] + h^2 exp(x[i]), with x[-1] = x[N] = 0.
template <std::size_t N>
constexpr auto bratu = [](const auto& x) {
  constexpr double h = 1.0 / (N + 1);
  const tl::vector<double, 1> zero{};
  return tl::concat(zero, tl::slice<0, N - 1>(x)) - 2.0 * x + tl::concat(tl::slice<1, N - 1>(x), zero) +
         h * h * tl::exp(x);
};

// Half the squared differences between neighbours of a G x G grid (right and down), plus sum cosh.
template <std::size_t G>
constexpr auto grid_energy = [](const auto& X) {
  auto right = tl::block<0, 1, G, G - 1>(X) - tl::block<0, 0, G, G - 1>(X);
  auto down = tl::block<1, 0, G - 1, G>(X) - tl::block<0, 0, G - 1, G>(X);
  return 0.5 * (tl::sum(tl::square(right)) + tl::sum(tl::square(down))) + tl::sum(tl::cosh(X));
};

// Its Hessian by hand: the grid's Laplacian (the 5-point stencil) plus cosh on the diagonal.
template <std::size_t G>
tl::matrix<double, G * G, G * G> grid_hessian(const tl::matrix<double, G, G>& X) {
  tl::matrix<double, G * G, G * G> h{};
  auto link = [&](std::size_t a, std::size_t b) {
    h(a, a) += 1.0;
    h(b, b) += 1.0;
    h(a, b) -= 1.0;
    h(b, a) -= 1.0;
  };
  for (std::size_t i = 0; i < G; ++i)
    for (std::size_t j = 0; j < G; ++j) {
      if (j + 1 < G) link(i * G + j, i * G + j + 1);
      if (i + 1 < G) link(i * G + j, (i + 1) * G + j);
      h(i * G + j, i * G + j) += std::cosh(X(i, j));
    }
  return h;
}

template <std::size_t N>
constexpr tl::vector<double, N> zero_vector{};

// Data that a function without captures reads: mostly zeros.
constexpr tl::matrix<double, 3, 4> weights{{1, 0, 0, 0}, {0, 2, 0, 0}, {0, 0, 0, 3}};

// Whether p holds exactly the entries (i, j) with |i - j| <= 1.
template <class P>
constexpr bool is_tridiagonal(const P& p) {
  for (std::size_t i = 0; i < p.rows(); ++i)
    for (std::size_t j = 0; j < p.cols(); ++j)
      if (p(i, j) != (i <= j + 1 && j <= i + 1)) return false;
  return true;
}

// Whether p holds exactly the diagonal.
template <class P>
constexpr bool is_diagonal(const P& p) {
  for (std::size_t i = 0; i < p.rows(); ++i)
    for (std::size_t j = 0; j < p.cols(); ++j)
      if (p(i, j) != (i == j)) return false;
  return true;
}

// Every entry of the sparse h equals the dense d's (to tol, relative), every entry outside h's pattern
// is 0 in d, and dense(h) is d where tol is 0.
template <class H, class D>
void check_against_dense(const H& h, const D& d, double tol) {
  for (std::size_t i = 0; i < H::rows(); ++i)
    for (std::size_t j = 0; j < H::cols(); ++j) {
      INFO("entry (" << i << ", " << j << ")");
      if (!H::pattern(i, j)) CHECK(d(i, j) == 0.0);  // the pattern misses nothing
      if (tol == 0.0)
        CHECK(h(i, j) == d(i, j));
      else
        CHECK(fd::rel_error(h(i, j), d(i, j)) <= tol);
    }
}

}  // namespace

TEST_CASE("patterns of sums, products, elementwise chains and reductions are constants") {
  constexpr std::size_t n = 6;
  constexpr auto x = zero_vector<n>;
  // A full sum of squares: diagonal. A linear function: no entry. log-sum-exp: dense.
  static_assert(is_diagonal(tl::hessian_pattern([](const auto& v) { return tl::sum(tl::square(v)); }, x)));
  static_assert(tl::hessian_pattern([](const auto& v) { return tl::sum(3.0 * v) + 1.0; }, x).nonzeros() == 0);
  static_assert(tl::hessian_pattern([](const auto& v) { return tl::log_sum_exp(v); }, x).nonzeros() == n * n);
  // An elementwise chain stays diagonal; a product of two elements couples them and no others.
  static_assert(is_diagonal(tl::hessian_pattern([](const auto& v) { return tl::sum(tl::exp(tl::sin(v) * v)); }, x)));
  constexpr auto product = tl::hessian_pattern([](const auto& v) { return v[1] * v[4]; }, x);
  static_assert(product.nonzeros() == 2 && product(1, 4) && product(4, 1));
  // A square of a sum is dense: each pair of elements meets in it.
  static_assert(tl::hessian_pattern([](const auto& v) { return tl::square(tl::sum(v)); }, x).nonzeros() == n * n);
  // Jacobians: an elementwise function is diagonal, a sum one dense row, a constant no entry.
  static_assert(is_diagonal(tl::jacobian_pattern([](const auto& v) { return tl::exp(v) * 2.0; }, x)));
  static_assert(tl::jacobian_pattern([](const auto& v) { return tl::sum(v); }, x).nonzeros() == n);
  static_assert(tl::jacobian_pattern([](const auto& v) { return tl::sum(v) * 0.0 + 1.0; }, x).nonzeros() == n);
  static_assert(tl::jacobian_pattern([](const auto& v) { return tl::sum(v) * 0.0 + 1.0; }, x).rows() == 1);
}

TEST_CASE("patterns of slices, blocks and matmul are constants") {
  // Rosenbrock through two slices, and Bratu through slices and concat: tridiagonal, 3 n - 2 entries.
  constexpr std::size_t n = 16;
  constexpr auto h = tl::hessian_pattern(rosenbrock<n>, zero_vector<n>);
  static_assert(h.nonzeros() == 3 * n - 2 && is_tridiagonal(h));
  constexpr auto j = tl::jacobian_pattern(bratu<n>, zero_vector<n>);
  static_assert(j.rows() == n && j.cols() == n && is_tridiagonal(j));
  // The grid through blocks: the 5-point stencil, G^2 + 4 G (G - 1) entries.
  constexpr std::size_t g = 5;
  constexpr auto s = tl::hessian_pattern(grid_energy<g>, tl::matrix<double, g, g>{});
  static_assert(s.nonzeros() == g * g + 4 * g * (g - 1));
  static_assert(s(6, 7) && s(6, 11) && s(6, 1) && !s(6, 12) && !s(4, 5));  // (1, 1) beside (1, 2) and (2, 1)
  // (X X)(i, j) depends on row i and column j of X alone.
  constexpr auto m = tl::jacobian_pattern([](const auto& X) { return tl::matmul(X, X); }, tl::matrix<double, 3, 3>{});
  static_assert(m.rows() == 9 && m.cols() == 9);
  static_assert([&] {
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t jj = 0; jj < 3; ++jj)
        for (std::size_t a = 0; a < 3; ++a)
          for (std::size_t b = 0; b < 3; ++b)
            if (m(i * 3 + jj, a * 3 + b) != (a == i || b == jj)) return false;
    return true;
  }());
}

TEST_CASE("a branch keeps both sides in the pattern, whichever the point takes") {
  constexpr auto x = zero_vector<4>;
  // max, min and abs choose by value; the pattern holds what either choice couples.
  constexpr auto mx = tl::hessian_pattern([](const auto& v) { return tl::max(v[0], v[1]) * v[2]; }, x);
  static_assert(mx(0, 2) && mx(1, 2) && !mx(0, 1) && !mx(2, 2) && !mx(3, 3));
  constexpr auto ab = tl::hessian_pattern([](const auto& v) { return tl::abs(v[0] - v[1]) * v[3]; }, x);
  static_assert(ab(0, 3) && ab(1, 3) && !ab(2, 2) && !ab(3, 3));
  // if_else of a condition, and of a mask of conditions that no pattern point meets.
  constexpr auto ie =
      tl::hessian_pattern([](const auto& v) { return tl::if_else(v[0] > 100.0, v[1] * v[2], v[2] * v[3]); }, x);
  static_assert(ie(1, 2) && ie(2, 3) && !ie(1, 3) && !ie(0, 0));
  constexpr auto masked =
      tl::hessian_pattern([](const auto& v) { return tl::sum(tl::if_else(v > 100.0, tl::square(v), v)); }, x);
  static_assert(is_diagonal(masked));
  // max_element picks an element by value, so any element may be picked at some point.
  constexpr auto me = tl::hessian_pattern([](const auto& v) { return tl::square(tl::max_element(v)); }, x);
  static_assert(me(1, 1) && me(2, 2) && me(0, 0) && me(3, 3));
}

TEST_CASE("a pattern holds what the structure couples, whatever the values") {
  constexpr auto x = zero_vector<4>;
  // A product with 0, and a difference of an element with itself, still couple.
  constexpr auto zero_product = tl::hessian_pattern([](const auto& v) { return 0.0 * v[1] * v[2]; }, x);
  static_assert(zero_product(1, 2) && zero_product.nonzeros() == 2);
  static_assert(tl::hessian_pattern([](const auto& v) { return tl::square(v[0] - v[0]); }, x)(0, 0));
  // Data read through tl::cref couples what its product reads, zeros of the data included.
  constexpr auto through_data =
      tl::hessian_pattern([](const auto& v) { return tl::sum(tl::square(tl::matmul(tl::cref(weights), v))); }, x);
  static_assert(through_data.nonzeros() == 16);
  // A sum over indices runs over every index while its pattern is found: as exact as slices.
  constexpr auto indices = tl::hessian_pattern(
      [](const auto& v) {
        return tl::sum_over(
            tl::indices(3), [](std::size_t i, const auto& w) { return tl::square(w[i + 1] - w[i] * w[i]); }, v);
      },
      x);
  static_assert(is_tridiagonal(indices));
}

TEST_CASE("banded and stencil patterns take as many colors as their band or stencil") {
  constexpr auto c16 = tl::color_columns(tl::hessian_pattern(rosenbrock<16>, zero_vector<16>));
  constexpr auto c64 = tl::color_columns(tl::hessian_pattern(rosenbrock<64>, zero_vector<64>));
  static_assert(c16.count == 3 && c64.count == 3);
  constexpr auto grid = tl::color_columns(tl::hessian_pattern(grid_energy<8>, tl::matrix<double, 8, 8>{}));
  static_assert(grid.count == 5);
  // No two columns of one color share a row.
  constexpr auto p = tl::hessian_pattern(grid_energy<8>, tl::matrix<double, 8, 8>{});
  for (std::size_t i = 0; i < p.rows(); ++i)
    for (std::size_t a = 0; a < p.cols(); ++a)
      for (std::size_t b = a + 1; b < p.cols(); ++b)
        if (p(i, a) && p(i, b)) CHECK(grid.color[a] != grid.color[b]);
}

TEST_CASE("sparse_hessian equals tl::hessian, the closed form and differences of the gradient") {
  fd::rng r(4201);
  SUBCASE("Rosenbrock, n = 16") {
    constexpr std::size_t n = 16;
    using H = decltype(tl::sparse_hessian(rosenbrock<n>)(zero_vector<n>));
    static_assert(H::nonzeros() == 3 * n - 2 && H::rows() == n && H::cols() == n);
    for (int point = 0; point < 5; ++point) {
      const auto x = ho::random_vector<n>(r, -2.0, 2.0);
      const auto h = tl::sparse_hessian(rosenbrock<n>)(x);
      check_against_dense(h, tl::hessian(rosenbrock<n>)(x), 0.0);
      check_against_dense(h, rosenbrock_hessian(x), ho::exact_tol);
      const auto fd_h = ho::fd_jacobian<n, n>([](const auto& v) { return tl::grad(rosenbrock<n>)(v); }, x);
      check_against_dense(h, fd_h, ho::second_fd_tol);
    }
  }
  SUBCASE("the grid, 6 x 6") {
    constexpr std::size_t g = 6;
    for (int point = 0; point < 3; ++point) {
      tl::matrix<double, g, g> X;
      for (auto& e : X) e = r.uniform(-1.0, 1.0);
      const auto h = tl::sparse_hessian(grid_energy<g>)(X);
      check_against_dense(h, tl::hessian(grid_energy<g>)(X), 0.0);
      check_against_dense(h, grid_hessian<g>(X), ho::exact_tol);
    }
  }
  SUBCASE("n = 1 (a number and a 1-vector) and n = 2") {
    const auto quartic = [](const auto& v) { return v * v * v * v; };
    CHECK(tl::sparse_hessian(quartic)(1.5)(0, 0) == tl::hessian(quartic)(1.5));
    const auto one = [](const auto& v) { return tl::sum(tl::exp(v)); };
    tl::vector<double, 1> x1;
    x1[0] = 0.25;
    CHECK(tl::sparse_hessian(one)(x1).nonzeros() == 1);
    CHECK(tl::sparse_hessian(one)(x1)(0, 0) == std::exp(0.25));
    const auto x2 = ho::random_vector<2>(r, -2.0, 2.0);
    check_against_dense(tl::sparse_hessian(rosenbrock<2>)(x2), tl::hessian(rosenbrock<2>)(x2), 0.0);
  }
  SUBCASE("a dense Hessian: the whole pattern, the same values") {
    const auto lse = [](const auto& v) { return tl::log_sum_exp(v); };
    const auto x = ho::random_vector<12>(r, -2.0, 2.0);
    const auto h = tl::sparse_hessian(lse)(x);
    static_assert(decltype(h)::nonzeros() == 144);
    check_against_dense(h, tl::hessian(lse)(x), 0.0);
  }
  SUBCASE("a function of no second derivative: no entry, no sweep") {
    const auto linear = [](const auto& v) { return tl::sum(v) * 2.0; };
    const auto h = tl::sparse_hessian(linear)(zero_vector<5>);
    static_assert(decltype(h)::nonzeros() == 0);
    CHECK(tl::dense(h) == tl::matrix<double, 5, 5>{});
  }
}

TEST_CASE("sparse_jacobian equals tl::jacobian and differences") {
  fd::rng r(4202);
  constexpr std::size_t n = 16;
  for (int point = 0; point < 5; ++point) {
    const auto x = ho::random_vector<n>(r, -1.0, 1.0);
    const auto j = tl::sparse_jacobian(bratu<n>)(x);
    static_assert(decltype(j)::nonzeros() == 3 * n - 2);
    check_against_dense(j, tl::jacobian(bratu<n>)(x), 0.0);
    check_against_dense(j, ho::fd_jacobian<n, n>([](const auto& v) { return bratu<n>(v); }, x), ho::second_fd_tol);
  }
  // A function returning a number: one row. One returning a matrix: its elements row-major.
  const auto x = ho::random_vector<4>(r, -1.0, 1.0);
  const auto norm = [](const auto& v) { return tl::sum(tl::square(tl::slice<1, 2>(v))); };
  const auto row = tl::sparse_jacobian(norm)(x);
  static_assert(decltype(row)::rows() == 1 && decltype(row)::nonzeros() == 2);
  CHECK(row(0, 1) == 2.0 * x[1]);
  CHECK(row(0, 2) == 2.0 * x[2]);
  CHECK(row(0, 0) == 0.0);
  const auto outer = [](const auto& v) { return tl::matmul(tl::slice<0, 2>(v), tl::transpose(tl::slice<2, 2>(v))); };
  check_against_dense(tl::sparse_jacobian(outer)(x), tl::jacobian(outer)(x), 0.0);
}

// f's sparse Hessian (Hessian) or Jacobian at x, by colors: what the transform does where f is not a
// sum of elementwise terms.
template <bool Hessian, class F, class X>
auto by_colors(const F& f, const X& x) {
  return tl::detail::sparse_derivative_transform<F, Hessian, false>{f}(x);
}

// Whether the transform takes f's Hessian (Hessian) or Jacobian at an x of type X term by term.
template <bool Hessian, class F, class X>
constexpr bool term_by_term(const F&, const X&) {
  using S = tl::detail::derivative_structure<F, X, Hessian>;
  return tl::detail::by_terms<S, F, X, Hessian>();
}

// h, by terms, against the dense transform, the colors and (for a vector x) differences of the gradient.
template <class F, class X>
void check_hessian_by_terms(const F& f, const X& x) {
  const auto h = tl::sparse_hessian(f)(x);
  check_against_dense(h, tl::hessian(f)(x), ho::exact_tol);
  check_against_dense(h, tl::dense(by_colors<true>(f, x)), ho::exact_tol);
  if constexpr (X::cols() == 1) {  // a vector
    constexpr std::size_t n = X::rows();
    check_against_dense(h, ho::fd_jacobian<n, n>([&](const auto& v) { return tl::grad(f)(v); }, x), ho::second_fd_tol);
  }
}

constexpr tl::vector<double, 8> scales{1.0, 0.0, 2.0, -1.0, 0.5, 3.0, 0.0, -2.0};

TEST_CASE("sums of elementwise terms over parts of x: term by term, element by element") {
  fd::rng r(4204);
  constexpr std::size_t n = 8;
  const auto x = ho::random_vector<n>(r, -1.5, 1.5);
  static_assert(term_by_term<true>(rosenbrock<n>, x) && term_by_term<true>(grid_energy<4>, tl::matrix<double, 4, 4>{}));
  static_assert(term_by_term<false>(bratu<n>, x));

  SUBCASE("Rosenbrock, the grid and Bratu's residual") {
    check_hessian_by_terms(rosenbrock<n>, x);
    tl::matrix<double, 4, 4> X;
    for (auto& e : X) e = r.uniform(-1.0, 1.0);
    check_hessian_by_terms(grid_energy<4>, X);
    const auto j = tl::sparse_jacobian(bratu<n>)(x);
    check_against_dense(j, tl::jacobian(bratu<n>)(x), ho::exact_tol);
    check_against_dense(j, tl::dense(by_colors<false>(bratu<n>, x)), ho::exact_tol);
  }
  SUBCASE("negations, differences, quotients and products by numbers on either side, data, a mean") {
    const auto f = [](const auto& v) {
      auto head = tl::slice<0, n - 1>(v);
      auto tail = tl::slice<1, n - 1>(v);
      return -(tl::sum(tl::square(tail - head)) / 4.0) + 3.0 * tl::sum(tl::exp(v) * tl::cref(scales)) -
             tl::sum(tl::sin(head) * tail) * 0.5 + 2.0 + tl::mean(tl::cosh(tail));
    };
    static_assert(term_by_term<true>(f, x));
    check_hessian_by_terms(f, x);
  }
  SUBCASE("terms linear in some inputs, a zero concatenated, a sum of x itself") {
    // x[i] (1 + x[i + 1]^2): no d2/dx_i^2; (0, x[0], ...) - x: element 0 reads a constant.
    const auto f = [](const auto& v) {
      const tl::vector<double, 1> zero{};
      auto head = tl::slice<0, n - 1>(v);
      auto shifted = tl::concat(zero, head) - v;
      return tl::sum(head + head * tl::square(tl::slice<1, n - 1>(v))) + tl::sum(tl::square(shifted) * shifted) -
             tl::sum(v);
    };
    static_assert(term_by_term<true>(f, x));
    check_hessian_by_terms(f, x);
  }
  SUBCASE("transposed, reshaped and broadcast parts") {
    const auto f = [](const auto& A) {
      return tl::sum(tl::sin(tl::transpose(A)) * A) + tl::sum(tl::square(tl::reshape<9, 1>(A) - A(0, 0)));
    };
    tl::matrix<double, 3, 3> A;
    for (auto& e : A) e = r.uniform(-1.0, 1.0);
    static_assert(!term_by_term<true>(f, A));  // A(0, 0) reads an element at a run-time position
    const auto g = [](const auto& B) {
      return tl::sum(tl::sin(tl::transpose(B)) * B) + tl::sum(tl::cosh(tl::reshape<9, 1>(B)));
    };
    static_assert(term_by_term<true>(g, A));
    check_hessian_by_terms(f, A);
    check_hessian_by_terms(g, A);
  }
  SUBCASE("what is not a sum of terms is swept by colors") {
    const auto lse = [](const auto& v) { return tl::log_sum_exp(v); };
    const auto product = [](const auto& v) { return tl::sum(tl::square(v)) * tl::sum(v); };
    static_assert(!term_by_term<true>(lse, x) && !term_by_term<true>(product, x));
    check_hessian_by_terms(product, x);
    const auto outer = [](const auto& v) { return tl::matmul(tl::slice<0, 2>(v), tl::transpose(tl::slice<2, 2>(v))); };
    static_assert(!term_by_term<false>(outer, x));
  }
  SUBCASE("a gathered formula's Jacobian") {
    const auto f = [](const auto& v) {
      const tl::vector<double, 1> zero{};
      return tl::square(tl::concat(tl::slice<1, n - 1>(v), zero)) * v - tl::cosh(v) / 3.0;
    };
    static_assert(term_by_term<false>(f, x));
    const auto j = tl::sparse_jacobian(f)(x);
    check_against_dense(j, tl::jacobian(f)(x), ho::exact_tol);
    check_against_dense(j, tl::dense(by_colors<false>(f, x)), ho::exact_tol);
    check_against_dense(j, ho::fd_jacobian<n, n>([&](const auto& v) { return f(v); }, x), ho::second_fd_tol);
    // A matrix result: its elements row-major, as the rows.
    const auto g = [](const auto& A) { return tl::square(tl::transpose(A)) * tl::block<0, 0, 3, 3>(A); };
    tl::matrix<double, 3, 3> A;
    for (auto& e : A) e = r.uniform(-1.0, 1.0);
    static_assert(term_by_term<false>(g, A));
    const auto ja = tl::sparse_jacobian(g)(A);
    static_assert(decltype(ja)::nonzeros() == 9 + 6);
    check_against_dense(ja, tl::jacobian(g)(A), ho::exact_tol);
    check_against_dense(ja, tl::dense(by_colors<false>(g, A)), ho::exact_tol);
  }
  SUBCASE("NaN and inf reach the entries of the terms that read them, and no other") {
    auto y = x;
    y[3] = std::numeric_limits<double>::infinity();
    const auto h = tl::sparse_hessian(rosenbrock<n>)(y);
    CHECK(std::isnan(h(3, 3)));
    CHECK(std::isnan(h(2, 3)));
    CHECK(h(1, 2) == -400.0 * y[1]);  // the terms of elements 1 and 2 read x[1] and x[2] alone
    CHECK(h(0, 0) == tl::hessian(rosenbrock<n>)(y)(0, 0));
  }
}

TEST_CASE("the values come in the pattern's row-major order") {
  fd::rng r(4203);
  const auto x = ho::random_vector<5>(r, -1.0, 1.0);
  const auto h = tl::sparse_hessian(rosenbrock<5>)(x);
  using H = std::remove_cvref_t<decltype(h)>;
  std::size_t k = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(H::row_start(i) == k);
    for (std::size_t j = 0; j < 5; ++j)
      if (H::pattern(i, j)) {
        CHECK(H::row_index(k) == i);
        CHECK(H::col_index(k) == j);
        CHECK(h.values()[k] == h(i, j));
        ++k;
      }
  }
  CHECK(k == H::nonzeros());
  CHECK(H::row_start(5) == k);
}

TEST_CASE("a sparse Hessian in a constant expression, and with no allocation") {
  constexpr tl::vector<double, 8> x{0.5, -0.25, 1.0, 2.0, -1.5, 0.75, 0.0, 1.25};
  constexpr auto h = tl::sparse_hessian(rosenbrock<8>)(x);
  static_assert(h(0, 0) == 1200.0 * 0.25 - 400.0 * -0.25 + 2.0);
  static_assert(h(0, 1) == -400.0 * 0.5 && h(1, 0) == h(0, 1) && h(0, 2) == 0.0);
  static_assert(h(7, 7) == 200.0);
  CHECK(test_support::allocations_during([&] {
          const auto sh = tl::sparse_hessian(rosenbrock<8>)(x);
          const auto sj = tl::sparse_jacobian(bratu<8>)(x);
          CHECK(sh.values()[0] == h.values()[0]);
          CHECK(sj(0, 0) != 0.0);
        }) == 0);
}
