// SPDX-License-Identifier: BSL-1.0
// bench/users.hpp: the suite's cases S1 to S9 in tapeless as users write them: the formula transcribed,
// element by element where it has indices, with data captured by value in the lambda.
//
// The project's own kernels (in the bench files) use slices, tl::cref and tl::let where these make the
// gradient fast; a user transcribing the formula does not know to. Each kernel here but S8's is timed
// as the case "<case>_users" (bench/cases.hpp), beside the case written the project's way, and the
// translation units of bench/compile/ compile all of them against the hand-written adjoints alone.
//   - S1, S2 and S4: a user writes them as the project does, so the project's rows time these kernels.
//   - S3: tl::sum_over(tl::indices(n - 1), term, x), the term reading x[i] and x[i + 1], n read at run
//     time: the loop a C++ programmer writes.
//   - S7: folds over the indices, one term per index, as C++20 folds over a fixed n:
//     [&]<std::size_t... I>(std::index_sequence<I...>) { return (... + term(I)); }.
//   - S5, S6 and S8: the data captured by value, the function built once before the gradients, as the
//     user guide's logistic regression builds its loss before its loop (with_function below).
//   - S9: the determinant by minors and the inverse as adjugate over determinant, through A(i, j); the
//     determinant is shared by tl::let, as the README says a value used more than once is.
#pragma once

#include "adjoints.hpp"
#include "suite.hpp"

#include <tapeless/tapeless.hpp>

#include <array>
#include <cstddef>
#include <tuple>
#include <utility>

namespace tapeless_bench {

// Internal linkage: adjoints.hpp says why.
namespace {

/// A case's inputs, and the function `Build(inputs)` made of them once, as a user makes the function
/// before the loop that calls its gradient: the captured copies of the data are the user's, not a cost
/// of each gradient. The hand-written adjoints read the inputs it derives from.
template <class In, auto Build>
struct with_function : In {
  decltype(Build(std::declval<const In&>())) function = Build(*this);
};

/// The inputs of a case (`Inputs()`) with its function `Build` made of them.
template <auto Inputs, auto Build>
auto inputs_with_function() {
  return with_function<decltype(Inputs()), Build>{Inputs()};
}

// ---------------------------------------------------------------------------------------------
// S1 walkthrough and S2 log_mul_sin.

TAPELESS_BENCH_KERNEL std::tuple<double, double> s1_tapeless(double x1, double x2) {
  return tl::grad([](const auto& x1, const auto& x2) { return tl::pow(x1 - x2, 2) + tl::cos(x1 + x2); })(x1, x2);
}

TAPELESS_BENCH_KERNEL std::tuple<double, double> s2_tapeless(double x1, double x2) {
  return tl::grad([](const auto& x1, const auto& x2) { return tl::log(x1) + x1 * x2 - tl::sin(x2); })(x1, x2);
}

// ---------------------------------------------------------------------------------------------
// S3 rosenbrock: the sum over the indices i < n - 1 of a term reading x[i] and x[i + 1], n read at run
// time.

/// S3's inputs and n, the length of x, read at run time in every gradient (the inputs are opaque).
template <std::size_t N>
struct s3_users_in : s3_in<N> {
  std::size_t n = N;
};

template <std::size_t N>
inline s3_users_in<N> s3_users_inputs() {
  return {s3_inputs<N>(), N};
}

template <std::size_t N>
TAPELESS_BENCH_KERNEL tl::vector<double, N> s3_users(const s3_users_in<N>& in) {
  const std::size_t n = in.n;
  return tl::grad([n](const auto& x) {
    return tl::sum_over(
        tl::indices(n - 1),
        [](const auto& i, const auto& x) {
          return 100.0 * tl::square(x[i + 1] - tl::square(x[i])) + tl::square(1.0 - x[i]);
        },
        x);
  })(in.x);
}

// ---------------------------------------------------------------------------------------------
// S4 log_sum_exp.

template <std::size_t N>
TAPELESS_BENCH_KERNEL tl::vector<double, N> s4_tapeless(const s4_in<N>& in) {
  return tl::grad([](const auto& x) { return tl::log_sum_exp(x); })(in.x);
}

// ---------------------------------------------------------------------------------------------
// S5 normal_logpdf: y captured by value, the sum over the data and n times the terms of sigma.

inline auto s5_users_function(const s5_in& in) {
  return [y = in.y](const auto& mu, const auto& sigma) {
    return tl::sum(-0.5 * tl::square((y - mu) / sigma)) - static_cast<double>(s5_n) * (tl::log(sigma) + half_log_2pi);
  };
}
using s5_users_in = with_function<s5_in, s5_users_function>;

TAPELESS_BENCH_KERNEL std::tuple<double, double> s5_users(const s5_users_in& in) {
  return tl::grad(in.function)(in.mu, in.sigma);
}

// ---------------------------------------------------------------------------------------------
// S6 logistic_regression: X and y captured by value, p named by tl::let as the user guide writes it.

inline auto s6_users_function(const s6_in& in) {
  return [X = in.X, y = in.y](const auto& beta) {
    return tl::let(tl::sigmoid(tl::matmul(X, beta)),
                   [&](const auto& p) { return -tl::mean(y * tl::log(p) + (1.0 - y) * tl::log(1.0 - p)); });
  };
}
using s6_users_in = with_function<s6_in, s6_users_function>;

TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s6_users(const s6_users_in& in) {
  return tl::grad(in.function)(in.beta);
}

// ---------------------------------------------------------------------------------------------
// S7 matmul: sum(A A) as the sum over i and j of (A A)(i, j), each the sum over k of A(i, k) A(k, j).
// (One fold over the n^3 products would pass clang's limit of 256 nested brackets.)

TAPELESS_BENCH_KERNEL tl::matrix<double, s7_n, s7_n> s7_users(const s7_in& in) {
  return tl::grad([](const auto& A) {
    constexpr std::size_t n = s7_n;
    auto product_entry = [&](std::size_t i, std::size_t j) {
      return [&]<std::size_t... K>(std::index_sequence<K...>) { return (... + (A(i, K) * A(K, j))); }
      (std::make_index_sequence<n>{});
    };
    return [&]<std::size_t... I>(std::index_sequence<I...>) { return (... + product_entry(I / n, I % n)); }
    (std::make_index_sequence<n * n>{});
  })(in.A);
}

// ---------------------------------------------------------------------------------------------
// S8 mlp: x captured by value. Compiled in bench/compile/ only: built into the matrix executable, its
// instantiations change g++'s inlining of S8 written the project's way and raise that case's count.

inline auto s8_users_function(const s8_in& in) {
  return [x = in.x, t = in.t](const auto& W1, const auto& b1, const auto& W2, const auto& b2) {
    auto y = tl::matmul(W2, tl::tanh(tl::matmul(W1, x) + b1))(0, 0) + b2;
    return tl::square(y - t);
  };
}
using s8_users_in = with_function<s8_in, s8_users_function>;

TAPELESS_BENCH_KERNEL s8_gradient s8_users(const s8_users_in& in) {
  return tl::grad(in.function)(in.W1, in.b1, in.W2, in.b2);
}

// ---------------------------------------------------------------------------------------------
// S9 logdet_inverse: det A by minors along the first row, inverse(A)(j, i) = cofactor(i, j) / det A.

/// `indices` without its k-th entry.
template <std::size_t K>
constexpr std::array<std::size_t, K - 1> without(const std::array<std::size_t, K>& indices, std::size_t k) {
  std::array<std::size_t, K - 1> kept{};
  for (std::size_t from = 0, to = 0; from < K; ++from)
    if (from != k) kept[to++] = indices[from];
  return kept;
}

/// The determinant of the K x K submatrix of A on `rows` and `cols`, by minors along its first row.
template <std::size_t K, class M>
constexpr auto det_by_minors(const M& A, const std::array<std::size_t, K>& rows,
                             const std::array<std::size_t, K>& cols) {
  if constexpr (K == 1) {
    return A(rows[0], cols[0]);
  } else {
    return [&]<std::size_t... C>(std::index_sequence<C...>) {
      return (... + ((C % 2 == 0 ? 1.0 : -1.0) * A(rows[0], cols[C]) *
                     det_by_minors<K - 1>(A, without(rows, 0), without(cols, C))));
    }
    (std::make_index_sequence<K>{});
  }
}

TAPELESS_BENCH_KERNEL s9_matrix s9_users(const s9_in& in) {
  return tl::grad([](const auto& A) {
    constexpr std::size_t n = s9_n;
    constexpr std::array<std::size_t, n> all{0, 1, 2, 3};
    auto cofactor = [&](std::size_t i, std::size_t j) {
      return ((i + j) % 2 == 0 ? 1.0 : -1.0) * det_by_minors<n - 1>(A, without(all, i), without(all, j));
    };
    return tl::let(det_by_minors<n>(A, all, all), [&](const auto& det) {
      return tl::log(det) + [&]<std::size_t... I>(std::index_sequence<I...>) {
        return (... + (cofactor(I / n, I % n) / det));
      }
      (std::make_index_sequence<n * n>{});
    });
  })(in.A);
}

}  // namespace

}  // namespace tapeless_bench
