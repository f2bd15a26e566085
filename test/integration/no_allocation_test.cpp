// SPDX-License-Identifier: BSL-1.0
// Fixed-shape gradients touch no heap: global operator new is replaced and counted around each call.
// The scalar operations, let, and every matrix operation (elementwise with broadcasting, linear
// algebra, reductions, shape operations, masks, tl::cref), through grad, value_and_grad and backward();
// sums over rows of data (tl::rows, tl::sum_over, tl::mean_over) for any row count.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <row_sum_check.hpp>

#include <cmath>
#include <cstddef>
#include <tuple>
#include <utility>
#include <vector>

namespace tl = tapeless;

namespace {

using test_support::allocations_during;

// Every operation in one function, so one call covers them all.
constexpr auto everything = [](const auto& x, const auto& y) {
  auto a = tl::exp(x) + tl::exp2(y) + tl::expm1(x) + tl::log(y) + tl::log2(y) + tl::log10(y) + tl::log1p(x);
  auto b =
      tl::sqrt(y) + tl::cbrt(x) + tl::square(x) + tl::pow(x, 2) + tl::pow(y, 0.5) + tl::pow(y, x) + tl::pow(2.0, x);
  auto c = tl::sin(x) + tl::cos(y) + tl::tan(x) + tl::asin(x) + tl::acos(x) + tl::atan(y) + tl::atan2(y, x);
  auto d = tl::sinh(x) + tl::cosh(y) + tl::tanh(x) + tl::asinh(y) + tl::acosh(y) + tl::atanh(x) + tl::hypot(x, y);
  auto e = tl::abs(x) + tl::erf(x) + tl::erfc(y) + tl::sigmoid(x) + tl::softplus(y) + tl::relu(x) + tl::min(x, y);
  auto f = tl::max(x, y) + tl::if_else(x > 0.0, x * y, x / y) - (-x) * 2.0 / y;
  return a + b + c + d + e + f;
};

}  // namespace

TEST_CASE("the counter sees heap allocations") {
  // The optimiser may elide a new-expression whose result it can see unused (clang does);
  // one stored in a volatile pointer escapes, so it must be made.
  CHECK(allocations_during([] {
          double* volatile p = new double(1.0);
          delete p;
        }) == 1);
}

TEST_CASE("grad and value_and_grad allocate nothing") {
  double g1 = 0, g2 = 0, v = 0;
  CHECK(allocations_during([&] { std::tie(g1, g2) = tl::grad(everything)(0.5, 2.0); }) == 0);
  CHECK(allocations_during([&] { std::tie(v, std::ignore) = tl::value_and_grad(everything)(0.5, 2.0); }) == 0);
  CHECK(allocations_during([&] { g1 = tl::grad<1>(everything)(0.5, 2.0); }) == 0);
  CHECK(std::isfinite(g1 + g2 + v));
}

TEST_CASE("let allocates nothing") {
  auto f = [](auto x) {
    return tl::let(x * x, [](auto t) { return tl::let(t * t + t, [](auto u) { return u * u + tl::sin(u); }); });
  };
  double g = 0;
  CHECK(allocations_during([&] { g = tl::grad(f)(0.3); }) == 0);
  CHECK(g != 0.0);
}

TEST_CASE("a deep tree, cut as it is built (expr/cut.hpp), allocates nothing") {
  // A sum of 60 products, left to right: 60 levels, cut three times.
  auto f = [](const auto& x, const auto& y) {
    return [&]<std::size_t... K>(std::index_sequence<K...>) { return (... + (x * y * double(K))); }
    (std::make_index_sequence<60>{});
  };
  double gx = 0, gy = 0;
  CHECK(allocations_during([&] { std::tie(gx, gy) = tl::grad(f)(0.5, 2.0); }) == 0);
  CHECK(gx == 1770.0 * 2.0);  // the sum of K is 1770
  CHECK(gy == 1770.0 * 0.5);
}

TEST_CASE("backward allocates nothing") {
  tl::var<double> x{0.5}, y{2.0};
  CHECK(allocations_during([&] {
          auto z = everything(x, y);
          z.backward();
        }) == 0);
  CHECK(x.grad() == doctest::Approx(std::get<0>(tl::grad(everything)(0.5, 2.0))));
}

// ---- matrices ------------------------------------------------------------------------------------

namespace {

using M23 = tl::matrix<double, 2, 3>;
using M33 = tl::matrix<double, 3, 3>;
using M44 = tl::matrix<double, 4, 4>;
using V3 = tl::vector<double, 3>;
using V4 = tl::vector<double, 4>;

// Inputs inside every domain: `everything` needs x in (-1, 1) and y >= 1; A * s is well conditioned.
const M23 x23{{-0.5, 0.25, 0.75}, {0.5, -0.25, 0.1}};
const M23 y23{{1.5, 2.0, 2.5}, {3.0, 1.25, 1.75}};
const M33 a33{{2.0, 0.5, -0.3}, {0.1, 1.5, 0.4}, {-0.2, 0.3, 1.8}};
const V3 b3{0.3, -0.7, 1.1};
const V4 v4{0.2, -0.4, 0.6, 0.9};
const M23 data23{{1.0, -2.0, 0.5}, {0.25, 3.0, -1.0}};  // used through tl::cref: outlives every call

template <class M>
bool all_finite(const M& m) {
  for (const double e : m)
    if (!std::isfinite(e)) return false;
  return true;
}
template <class M>
bool any_nonzero(const M& m) {
  for (const double e : m)
    if (e != 0.0) return true;
  return false;
}
/// A gradient that is finite and not all zero: the work was done and not optimised away.
template <class G>
bool finite_nonzero(const G& g) {
  if constexpr (tl::Matrix<G>)
    return all_finite(g) && any_nonzero(g);
  else
    return std::isfinite(g) && g != 0.0;
}
template <class... G>
bool all_finite_nonzero(const std::tuple<G...>& gs) {
  return std::apply([](const auto&... g) { return (finite_nonzero(g) && ...); }, gs);
}

// Every scalar operation elementwise on matrices, through `everything`: matrix with matrix, matrix
// with a number, matrix with a scalar expression on either side; elementwise if_else of a mask.
// s is a scalar in (0, 1); X = A * s keeps every element in its domain (A in x23, B in y23).
constexpr auto matrix_elementwise = [](const auto& A, const auto& B, const auto& s) {
  const auto X = A * s;
  return tl::sum(everything(X, B)) + tl::sum(everything(X, s + 1.0)) + tl::sum(everything(s * 0.5, B + X)) +
         tl::sum(X * 2.0 + 2.0 / (B + X) - 1.0 - s / B + tl::pow(s, X) + tl::atan2(X, s) + tl::hypot(s, X));
};

// Every linear-algebra operation. A (3 x 3) and b (3-vector) are scaled by s, so that backward()
// with a tl::var s differentiates through each one.
constexpr auto linear_algebra = [](const auto& A, const auto& b, const auto& s) {
  const auto X = A * s;
  const auto y = b * s;
  const auto spd = tl::matmul(X, tl::transpose(X)) + tl::diag(tl::ones_like(y)) * 3.0;
  return tl::det(X) + tl::trace(tl::inverse(X)) + tl::log_det(spd) + tl::dot(tl::solve(X, y), y) +
         tl::sum(tl::solve(X, tl::outer(y, b))) + tl::sum(tl::cholesky(spd)) + tl::dot(y, tl::matmul(X, y)) +
         tl::trace(tl::outer(y, y));
};

// det, inverse and solve of one argument A (4 x 4), which share its LU factors (sweep/shared.hpp).
constexpr auto shared_factors = [](const auto& A, const auto& b) {
  return tl::det(A) + tl::sum(tl::inverse(A)) + tl::dot(tl::solve(A, b), b);
};

// Every reduction, every shape operation, masks and elementwise if_else, zeros_like, ones_like and
// tl::cref. A is 2 x 3, v a 4-vector, s a scalar.
constexpr auto reductions_and_shapes = [](const auto& A, const auto& v, const auto& s) {
  const auto X = A * s;
  const auto w = v * s;
  const auto reductions = tl::sum(X) + tl::mean(X) + tl::prod(X) + tl::squared_norm(X) + tl::norm(X) +
                          tl::max_element(X) + tl::min_element(X) + tl::log_sum_exp(X) +
                          tl::sum(tl::softmax(X) * tl::log_softmax(X));
  const auto parts = X(1, 2) + w[3] + tl::dot(tl::transpose(tl::row(X, 1)), tl::transpose(tl::row(X, 0))) +
                     tl::sum(tl::col(X, 2)) + tl::sum(tl::slice<1, 2>(w)) + tl::sum(tl::slice<0, 2>(tl::row(X, 0))) +
                     tl::sum(tl::matmul(tl::reshape<3, 2>(X), X)) +
                     tl::sum(tl::concat(X, tl::row(X, 0), tl::row(X, 1))) + tl::sum(tl::concat(w, s, 1.0)) +
                     tl::sum(tl::diag(w)) + tl::sum(tl::diag(tl::matmul(tl::transpose(X), X)));
  const auto m = ((X > 0.0) & ~(X >= tl::ones_like(X) * 10.0)) | ((X < s) ^ tl::equal(X, tl::zeros_like(X)));
  const auto chosen = tl::if_else(m, X, X * 0.1) + tl::if_else(X <= s, s, X) + tl::if_else(tl::not_equal(X, X), X, 2.0);
  return reductions + parts + tl::sum(chosen * X);
};

/// grad and value_and_grad of f at args allocate nothing, agree, and give finite, nonzero gradients.
template <class F, class... Args>
void check_grad_allocates_nothing(const F& f, const Args&... args) {
  decltype(tl::grad(f)(args...)) g{};
  decltype(tl::value_and_grad(f)(args...)) vg{};
  CHECK(allocations_during([&] { g = tl::grad(f)(args...); }) == 0);
  CHECK(allocations_during([&] { vg = tl::value_and_grad(f)(args...); }) == 0);
  CHECK(all_finite_nonzero(g));
  CHECK(std::isfinite(vg.first));
  CHECK(vg.second == g);
}

/// Building f(args..., s) with a tl::var s and calling backward() allocates nothing, and gives the
/// value and the derivative in s that value_and_grad gives at s's value: the work was done.
template <class F, class... Args>
void check_backward_allocates_nothing(const F& f, const Args&... args) {
  tl::var<double> s{0.9};
  double value = 0;
  CHECK(allocations_during([&] {
          auto z = f(args..., s);
          z.backward();
          value = z.value();
        }) == 0);
  const auto [v, g] = tl::value_and_grad(f)(args..., 0.9);
  CHECK(value == doctest::Approx(v));
  CHECK(s.grad() == doctest::Approx(std::get<sizeof...(Args)>(g)));
  CHECK(finite_nonzero(s.grad()));
}
}  // namespace

TEST_CASE("matrix operations: grad and value_and_grad allocate nothing") {
  check_grad_allocates_nothing(matrix_elementwise, x23, y23, 0.9);
  check_grad_allocates_nothing(linear_algebra, a33, b3, 0.9);
  check_grad_allocates_nothing(reductions_and_shapes, x23, v4, 0.9);
  const M44 a44{{4, 1, 0, 0.5}, {1, 3, 1, 0}, {0, 1, 5, 1}, {0.5, 0, 1, 4}};
  check_grad_allocates_nothing(shared_factors, a44, V4{1.0, -2.0, 0.5, 3.0});
  // One argument at a time: the others are constants.
  M33 ga{};
  CHECK(allocations_during([&] { ga = tl::grad<0>(linear_algebra)(a33, b3, 0.9); }) == 0);
  CHECK(ga == std::get<0>(tl::grad(linear_algebra)(a33, b3, 0.9)));
}

TEST_CASE("matrix operations with tl::cref data allocate nothing") {
  const auto loss = [](const auto& beta, const auto& s) {
    const auto p = tl::sigmoid(tl::matmul(tl::cref(data23), beta) * s);
    return -tl::mean(tl::log(p)) + tl::sum(tl::cref(data23) * s) + tl::log_sum_exp(tl::matmul(tl::cref(data23), beta));
  };
  check_grad_allocates_nothing(loss, b3, 0.5);
}

TEST_CASE("a loop with scaled adjoints allocates nothing, nor does its plain fallback") {
  // The normal log-density of mu and sigma over data (sweep/scaled.hpp). At data of 1e160 and sigma 1e5
  // the lines z^2 overflow (z up to 1e155) where z^2 / sigma does not: the gradient is finite only
  // because the loop ran again with plain adjoints (number_adjoints_in_batches).
  tl::vector<double, 37> y;
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = std::sin(static_cast<double>(i));
  const auto normal = [&y](const auto& mu, const auto& sigma) {
    return tl::sum(-0.5 * tl::square((tl::cref(y) - mu) / sigma) - tl::log(sigma));
  };
  std::tuple<double, double> g{};
  CHECK(allocations_during([&] { g = tl::grad(normal)(0.3, 1.7); }) == 0);
  CHECK(all_finite_nonzero(g));
  y *= 1e160;
  CHECK(allocations_during([&] { g = tl::grad(normal)(0.3, 1e5); }) == 0);
  CHECK(all_finite_nonzero(g));
}

TEST_CASE("matrix operations: backward() into a tl::var allocates nothing") {
  check_backward_allocates_nothing(matrix_elementwise, x23, y23);
  check_backward_allocates_nothing(linear_algebra, a33, b3);
  check_backward_allocates_nothing(reductions_and_shapes, x23, v4);
}

TEST_CASE("the higher-order transforms allocate nothing: hessian, jacobian, jvp, vjp, grad of grad") {
  using H = decltype(tl::hessian(linear_algebra)(a33, b3, 0.9));
  H h{};
  CHECK(allocations_during([&] { h = tl::hessian(linear_algebra)(a33, b3, 0.9); }) == 0);
  CHECK(finite_nonzero(std::get<0>(std::get<0>(h))));
  auto hm = tl::hessian<0>(matrix_elementwise)(x23, y23, 0.9);
  CHECK(allocations_during([&] { hm = tl::hessian<0>(matrix_elementwise)(x23, y23, 0.9); }) == 0);
  const auto layer = [](const auto& x) { return tl::tanh(tl::matmul(tl::cref(data23), x)) * x[0]; };        // 3 -> 2
  const auto wide = [](const auto& x) { return tl::exp(tl::matmul(tl::transpose(tl::cref(data23)), x)); };  // 2 -> 3
  tl::matrix<double, 2, 3> jr{};
  tl::matrix<double, 3, 2> jf{};
  CHECK(allocations_during([&] { jr = tl::jacobian(layer)(b3); }) == 0);  // reverse: 2 sweeps
  CHECK(allocations_during([&] { jf = tl::jacobian(wide)(tl::vector<double, 2>{0.3, -0.2}); }) == 0);  // forward
  CHECK(finite_nonzero(jr));
  CHECK(finite_nonzero(jf));
  tl::vector<double, 2> y{}, ydot{};
  tl::vector<double, 3> w{};
  CHECK(allocations_during([&] { std::tie(y, ydot) = tl::jvp(layer, std::tuple{b3}, std::tuple{b3}); }) == 0);
  CHECK(allocations_during([&] { w = tl::vjp(layer, b3).second(y); }) == 0);
  CHECK(finite_nonzero(w));
  double d3 = 0;
  CHECK(allocations_during(
            [&] { d3 = tl::grad(tl::grad(tl::grad([](auto t) { return tl::exp(t) * tl::sin(t); })))(0.7); }) == 0);
  CHECK(finite_nonzero(d3));
}

TEST_CASE("sum_over and mean_over over rows allocate nothing, for any row count") {
  using namespace row_sums;
  for (const std::size_t n : {std::size_t{10}, std::size_t{1000}, std::size_t{100000}}) {
    CAPTURE(n);
    const auto d = decay_data(n);  // the data is the caller's: made before counting
    const auto l = logistic_data(n);
    const auto m = matrix_data(n);
    const auto decay_total = decay_sum(d.t, d.y);
    const auto decay_average = decay_mean(d.t, d.y);
    const auto logistic_mean = [&](const auto& beta) {
      return tl::mean_over(tl::rows(l.x, l.y), logistic_term, beta) + 0.01 * tl::squared_norm(beta);
    };
    const auto matrix_sum = [&](const auto& M) { return tl::sum_over(tl::rows(m.A, m.y), matrix_term, M); };
    std::tuple<double, double, double> g{}, gm{};
    double value = 0, plain = 0;
    row8 gl{};
    m23 gM{};
    CHECK(allocations_during([&] { g = tl::grad(decay_total)(decay_a, decay_b, decay_c); }) == 0);
    CHECK(allocations_during([&] { gm = tl::grad(decay_average)(decay_a, decay_b, decay_c); }) == 0);
    CHECK(allocations_during([&] {
            std::tie(value, std::ignore) = tl::value_and_grad(decay_average)(decay_a, decay_b, decay_c);
          }) == 0);
    CHECK(allocations_during([&] { plain = decay_total(decay_a, decay_b, decay_c); }) == 0);
    CHECK(allocations_during([&] { gl = tl::grad(logistic_mean)(logistic_beta); }) == 0);
    CHECK(allocations_during([&] { gM = tl::grad(matrix_sum)(matrix_M); }) == 0);
    // And the results are the sums by hand: the counted calls did the work.
    const auto e = decay_expected(d, decay_a, decay_b, decay_c);
    check_close(e, flatten(plain, g));
    check_close(e, flatten(value, gm), static_cast<long double>(n));
    CHECK(finite_nonzero(gl));
    check_close(matrix_expected(m, matrix_M), flatten(matrix_sum(matrix_M), gM));
  }
}

TEST_CASE("second order through a sum over rows allocates nothing") {
  using namespace row_sums;
  const auto d = decay_data(1000);
  const auto decay_total = decay_sum(d.t, d.y);
  using H = decltype(tl::hessian(decay_total)(decay_a, decay_b, decay_c));
  H h{};
  CHECK(allocations_during([&] { h = tl::hessian(decay_total)(decay_a, decay_b, decay_c); }) == 0);
  CHECK(finite_nonzero(std::get<0>(std::get<0>(h))));
  double d2 = 0;
  const auto of_a = [&](const auto& a) { return tl::sum_over(tl::rows(d.t, d.y), decay_term, a, decay_b, decay_c); };
  CHECK(allocations_during([&] { d2 = tl::grad(tl::grad(of_a))(decay_a); }) == 0);
  CHECK(d2 == doctest::Approx(std::get<0>(std::get<0>(h))).epsilon(1e-12));
}

TEST_CASE("sums over tl::indices and tl::pairs allocate nothing") {
  using long_vector = tl::vector<double, 4100>;
  long_vector x{}, g{};
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = 0.001 * static_cast<double>(k);
  tl::matrix<double, 64, 3> p{}, gp{};
  for (std::size_t k = 0; k < p.size(); ++k) p[k] = static_cast<double>(k % 3) + 2.0 * static_cast<double>(k / 3);
  for (const std::size_t n : {std::size_t{10}, std::size_t{4097}}) {
    CAPTURE(n);
    const auto rosenbrock = [n](const auto& v) {
      return tl::sum_over(
          tl::indices(n),
          [](std::size_t i, const auto& w) {
            return 100.0 * tl::square(w[i + 1] - tl::square(w[i])) + tl::square(1.0 - w[i]);
          },
          v);
    };
    CHECK(allocations_during([&] { g = tl::grad(rosenbrock)(x); }) == 0);
    CHECK(g[0] != 0.0);
  }
  const auto pair_energy = [](const auto& q) {
    return tl::sum_over(
        tl::pairs(64),
        [](std::size_t i, std::size_t j, const auto& r) {
          return 1.0 / tl::squared_norm(tl::row(r, i) - tl::row(r, j));
        },
        q);
  };
  CHECK(allocations_during([&] { gp = tl::grad(pair_energy)(p); }) == 0);
  CHECK(gp[0] != 0.0);
}

TEST_CASE("a matrix of bounded extents allocates nothing; one of dynamic extents, one block") {
  using bounded_vector = tl::vector<double, tl::bounded<16>>;
  using bounded_matrix = tl::matrix<double, tl::bounded<4>, tl::bounded<4>>;
  double sum = 0;
  CHECK(allocations_during([&] {
          bounded_vector v(9);
          for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.5 * static_cast<double>(i);
          const bounded_vector w = 2.0 * v + v / 3.0 - 1.0;
          bounded_matrix m(3, 4);
          m(2, 3) = w[8];
          const bounded_matrix copy = m;
          sum = (copy * m)(2, 3);
        }) == 0);
  CHECK(sum == doctest::Approx(std::pow(2.0 * 4.0 + 4.0 / 3.0 - 1.0, 2)));
  CHECK(allocations_during([] {
          const tl::matrix<double, tl::dynamic, 3> m(100, 3);
          CHECK(m.size() == 300);
        }) == 1);
}
