// SPDX-License-Identifier: BSL-1.0
// Matrices in constant expressions: gradients of elementwise operations, reductions, construction,
// masks and matmul computed by the compiler. This file passes by compiling.
//
// Exact comparisons where the arithmetic is exact (sums and products of small integers, halves);
// elsewhere |a - b| <= 1e-12 max(1, |b|), against literals from the closed forms.
#include <tapeless/ops/mask.hpp>
#include <tapeless/tapeless.hpp>

#include <cstddef>
#include <type_traits>

namespace tl = tapeless;

namespace {

using M22 = tl::matrix<double, 2, 2>;
using M23 = tl::matrix<double, 2, 3>;
using V2 = tl::vector<double, 2>;
using V3 = tl::vector<double, 3>;

constexpr double abs_(double x) { return x < 0 ? -x : x; }
constexpr bool close(double a, double b, double tol = 1e-12) {
  return abs_(a - b) <= tol * (abs_(b) > 1 ? abs_(b) : 1.0);
}
template <class M>
constexpr bool all_close(const M& a, const M& b, double tol = 1e-12) {
  for (std::size_t i = 0; i < M::size(); ++i)
    if (!close(a[i], b[i], tol)) return false;
  return true;
}

// ---- construction: rows written out, short rows ending in zeros ------------------------------------
static_assert(M22{{1, 2}, {}} == M22{{1, 2}, {0, 0}});  // an empty row, up to rows_declared_max rows
static_assert(M22{{1}, {3, 4}} == M22{{1, 0}, {3, 4}});
static_assert(tl::mask<2, 2>{{true}, {}} == tl::mask<2, 2>{{true, false}, {false, false}});
// Taller: each row's length is deduced, and a short row still ends in zeros.
constexpr auto tall = [] {
  using T65 = tl::matrix<double, 65, 2>;
  T65 m{{1},  {2},  {3},  {4},  {5},  {6},  {7},  {8},  {9},  {10}, {11}, {12}, {13}, {14},    {15}, {16}, {17},
        {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31},    {32}, {33}, {34},
        {35}, {36}, {37}, {38}, {39}, {40}, {41}, {42}, {43}, {44}, {45}, {46}, {47}, {48},    {49}, {50}, {51},
        {52}, {53}, {54}, {55}, {56}, {57}, {58}, {59}, {60}, {61}, {62}, {63}, {64}, {65, 66}};
  return m;
}();
static_assert(tall(0, 0) == 1 && tall(0, 1) == 0 && tall(64, 0) == 65 && tall(64, 1) == 66);

// ---- the seed check ---------------------------------------------------------------------------------
constexpr auto f_seed = [](const auto& A) { return tl::sum(tl::matmul(A, A)); };
constexpr auto cgA = tl::grad(f_seed)(M22{{1, 2}, {3, 4}});
static_assert(std::is_same_v<decltype(cgA), const M22>);
static_assert(cgA == M22{{7, 11}, {9, 13}});
static_assert(tl::value_and_grad(f_seed)(M22{{1, 2}, {3, 4}}).first == 54.0);

// ---- elementwise --------------------------------------------------------------------------------------
// The gradient of a vector argument is a vector of the same type.
constexpr tl::matrix<double, 3, 1> g_pow =
    tl::grad([](const auto& x) { return tl::sum(tl::pow(x, 2.0)); })(V3{1.0, 2.0, 3.0});
static_assert(g_pow == tl::matrix<double, 3, 1>{{2}, {4}, {6}});
static_assert(tl::grad([](const auto& x) { return tl::sum(tl::pow(x, 3)); })(V3{1.0, 2.0, 3.0}) == V3{3.0, 12.0, 27.0});
static_assert(tl::grad([](const auto& x) { return tl::sum(x * x); })(V3{1.0, 2.0, 3.0}) == V3{2.0, 4.0, 6.0});
static_assert(tl::grad([](const auto& x) { return tl::sum(-x + 2.0 * x - x / 4.0); })(V3{1.0, 2.0, 3.0}) ==
              V3{0.75, 0.75, 0.75});
static_assert(tl::grad([](const auto& x) { return tl::sum(tl::exp(x)); })(V2{0.0, 0.0}) == V2{1.0, 1.0});
static_assert(all_close(tl::grad([](const auto& x) { return tl::sum(tl::log(x)); })(V2{2.0, 4.0}), V2{0.5, 0.25}));
static_assert(all_close(tl::grad([](const auto& x) { return tl::sum(tl::sin(x)); })(V2{0.0, 1.0}),
                        V2{1.0, 0.54030230586813971740}));
static_assert(all_close(tl::grad([](const auto& x) { return tl::sum(tl::sigmoid(x)); })(V2{0.0, 0.0}), V2{0.25, 0.25}));
// A scalar argument beside a matrix: its adjoint is the sum over the elements.
constexpr auto g_broadcast =
    tl::grad([](const auto& X, const auto& s) { return tl::sum(X * s - s); })(V3{1.0, 2.0, 3.0}, 2.0);
static_assert(std::get<0>(g_broadcast) == V3{2.0, 2.0, 2.0});
static_assert(std::get<1>(g_broadcast) == 6.0 - 3.0);
// min and max: the first operand at a tie.
constexpr auto g_max =
    tl::grad([](const auto& X, const auto& Y) { return tl::sum(tl::max(X, Y)); })(V3{1.0, 2.0, 3.0}, V3{2.0, 2.0, 2.0});
static_assert(std::get<0>(g_max) == V3{0.0, 1.0, 1.0});
static_assert(std::get<1>(g_max) == V3{1.0, 0.0, 0.0});

// ---- masks and if_else ----------------------------------------------------------------------------------
static_assert((M22{{1, -2}, {-3, 4}} > 0.0) == tl::mask<2, 2>{{true, false}, {false, true}});
static_assert((M22{{1, -2}, {-3, 4}} <= M22{{1, 1}, {1, 1}}) == tl::mask<2, 2>{{true, true}, {true, false}});
static_assert(tl::count(V3{1.0, 2.0, 3.0} >= 2.0) == 2);
static_assert(tl::grad([](const auto& x) { return tl::sum(tl::if_else(x > 0.0, x, 0.5 * x)); })(V3{-1.0, 1.0, 2.0}) ==
              V3{0.5, 1.0, 1.0});
constexpr auto g_if =
    tl::grad([](const auto& x, const auto& s) { return tl::sum(tl::if_else(x > s, s, x)); })(V3{-1.0, 1.0, 2.0}, 0.0);
static_assert(std::get<0>(g_if) == V3{1.0, 0.0, 0.0});
static_assert(std::get<1>(g_if) == 2.0);
static_assert(tl::if_else(V3{-1.0, 1.0, 2.0} > 0.0, 1.0, -1.0) == V3{-1.0, 1.0, 1.0});

// ---- reductions -----------------------------------------------------------------------------------------
static_assert(tl::grad([](const auto& x) { return tl::mean(x); })(V2{3.0, 5.0}) == V2{0.5, 0.5});
static_assert(tl::grad([](const auto& x) { return tl::prod(x); })(V3{2.0, 3.0, 4.0}) == V3{12.0, 8.0, 6.0});
static_assert(tl::grad([](const auto& x) { return tl::prod(x); })(V3{2.0, 0.0, 4.0}) == V3{0.0, 8.0, 0.0});
static_assert(tl::grad([](const auto& x) { return tl::squared_norm(x); })(V2{3.0, 4.0}) == V2{6.0, 8.0});
static_assert(tl::value_and_grad([](const auto& x) { return tl::norm(x); })(V2{3.0, 4.0}).first == 5.0);
static_assert(all_close(tl::grad([](const auto& x) { return tl::norm(x); })(V2{3.0, 4.0}), V2{0.6, 0.8}));
static_assert(tl::grad([](const auto& x) { return tl::norm(x); })(V2{0.0, 0.0}) == V2{0.0, 0.0});
static_assert(tl::grad([](const auto& x) { return tl::max_element(x); })(V3{1.0, 3.0, 3.0}) == V3{0.0, 1.0, 0.0});
static_assert(tl::grad([](const auto& x) { return tl::min_element(x); })(V3{2.0, 1.0, 1.0}) == V3{0.0, 1.0, 0.0});
static_assert(close(tl::log_sum_exp(V2{0.0, 0.0}), 0.69314718055994530942));
static_assert(close(tl::log_sum_exp(V2{1000.0, 1000.0}), 1000.69314718055994530942));
static_assert(tl::grad([](const auto& x) { return tl::log_sum_exp(x); })(V2{0.0, 0.0}) == V2{0.5, 0.5});
static_assert(tl::softmax(V2{7.0, 7.0}) == V2{0.5, 0.5});
static_assert(all_close(tl::softmax(V3{0.0, 1.0, 2.0}),
                        V3{0.090030573170380462, 0.24472847105479765, 0.66524095577482190}));
static_assert(all_close(tl::log_softmax(V2{0.0, 0.0}), V2{-0.69314718055994530942, -0.69314718055994530942}));
// d/dx sum(w * log_softmax(x)) = w - softmax(x) sum(w); at x = {0, 0}, w = {1, 3}: {1 - 2, 3 - 2}.
static_assert(all_close(tl::grad([](const auto& x) {
                          return tl::sum(V2{1.0, 3.0} * tl::log_softmax(x));
                        })(V2{0.0, 0.0}),
                        V2{-1.0, 1.0}));
// d/dx sum(w * softmax(x)) = y (w - sum(w y)); at x = {0, 0}, w = {1, 3}: y = 1/2, sum(w y) = 2.
static_assert(all_close(tl::grad([](const auto& x) {
                          return tl::sum(V2{1.0, 3.0} * tl::softmax(x));
                        })(V2{0.0, 0.0}),
                        V2{-0.5, 0.5}));

// ---- construction ------------------------------------------------------------------------------------------
static_assert(tl::zeros_like(M23{}) == M23{} && tl::ones_like(2.0) == 1.0);
static_assert(tl::grad([](const auto& A) {
                return tl::sum(tl::row(A, 1) * tl::matrix<double, 1, 3>{{1, 2, 3}});
              })(M23{}) == M23{{0, 0, 0}, {1, 2, 3}});
static_assert(tl::grad([](const auto& A) {
                return tl::sum(tl::col(A, 2) * V2{5.0, 7.0});
              })(M23{}) == M23{{0, 0, 5}, {0, 0, 7}});
static_assert(tl::reshape<3, 2>(M23{{1, 2, 3}, {4, 5, 6}}) == tl::matrix<double, 3, 2>{{1, 2}, {3, 4}, {5, 6}});
static_assert(tl::grad([](const auto& A) {
                return tl::sum(tl::reshape<3, 2>(A) * tl::matrix<double, 3, 2>{{1, 2}, {3, 4}, {5, 6}});
              })(M23{}) == M23{{1, 2, 3}, {4, 5, 6}});
static_assert(tl::concat(V2{1.0, 2.0}, 3.0) == V3{1.0, 2.0, 3.0});
static_assert(tl::concat(1.0, 2.0, 3.0) == V3{1.0, 2.0, 3.0});
constexpr auto g_concat = tl::grad([](const auto& a, const auto& s) {
  return tl::sum(tl::concat(a, s) * V3{1.0, 2.0, 3.0});
})(V2{}, 0.0);
static_assert(std::get<0>(g_concat) == V2{1.0, 2.0} && std::get<1>(g_concat) == 3.0);
static_assert(tl::diag(V2{1.0, 2.0}) == M22{{1, 0}, {0, 2}});
static_assert(tl::diag(M22{{1, 2}, {3, 4}}) == V2{1.0, 4.0});
static_assert(tl::grad([](const auto& A) { return tl::sum(tl::diag(A)); })(M22{}) == M22{{1, 0}, {0, 1}});
static_assert(tl::grad([](const auto& v) { return tl::sum(tl::diag(v) * M22{{1, 2}, {3, 4}}); })(V2{}) == V2{1.0, 4.0});
static_assert(tl::slice<1, 2>(V3{1.0, 2.0, 3.0}) == V2{2.0, 3.0});
static_assert(tl::grad([](const auto& v) {
                return tl::sum(tl::slice<1, 2>(v) * V2{5.0, 7.0});
              })(V3{}) == V3{0.0, 5.0, 7.0});

// The Rosenbrock function with slices: gradient 0 at its minimum, and the closed form elsewhere.
constexpr auto rosenbrock = [](const auto& x) {
  constexpr std::size_t n = tl::value_type_of_t<decltype(x)>::size();
  const auto head = tl::slice<0, n - 1>(x);
  const auto tail = tl::slice<1, n - 1>(x);
  return tl::sum(100.0 * tl::square(tail - tl::square(head)) + tl::square(1.0 - head));
};
using V10 = tl::vector<double, 10>;
static_assert(tl::grad(rosenbrock)(V10::filled(1.0)) == V10{});
constexpr bool rosenbrock_matches_closed_form() {
  V10 x;
  for (std::size_t i = 0; i < 10; ++i) x[i] = 0.25 * static_cast<double>(i) - 1.0;  // exact in binary
  const V10 g = tl::grad(rosenbrock)(x);
  V10 e{};
  for (std::size_t i = 0; i + 1 < 10; ++i) {
    const double d = x[i + 1] - x[i] * x[i];
    e[i] += -400.0 * x[i] * d - 2.0 * (1.0 - x[i]);
    e[i + 1] += 200.0 * d;
  }
  return all_close(g, e, 1e-15);
}
static_assert(rosenbrock_matches_closed_form());

}  // namespace
