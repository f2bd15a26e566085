// SPDX-License-Identifier: BSL-1.0
// test/support/matrix_check.hpp: finite differences and comparisons for functions of matrices.
//
//   mx::random<M>(r, lo, hi)              a matrix of uniform elements
//   mx::random_away<M>(r, lo, hi, {...}, margin)  the same, each element away from the points listed
//   mx::value_at(f, args...)              f's value at plain arguments, built from the same argument
//                                         leaves tl::grad uses (one instantiation of f for both)
//   mx::fd_grad(f, args...)               the gradient by finite differences (fd::derivative), each
//                                         element of each argument perturbed in turn; a std::tuple
//   mx::ad_grad(f, args...)               tl::grad(f)(args...), always as a std::tuple
//   mx::check_close(label, a, b, tol)     every element of a against b by fd::rel_error
//   mx::check_fd(label, f, tol, args...)  AD against FD for every argument
//   mx::check_fd_at_size<N>(label, f, tol, args...)  the same for a function of N elements, where the
//                                         sanitizers' build runs it up to N = 64 only
//   mx::affine_chain<K>(s)                s <- s / 2 + 1, K times: a number-valued tree K levels deep,
//                                         deeper than a cut's depth for K = 20
//   mx::index_sum<N>(term)                term(0) + term(1) + ... + term(N - 1), added left to right as a
//                                         fold expression adds them: a tree N levels deep
//   mx::balanced_sum<N>(term)             the same sum added pairwise, (first half) + (second half): a
//                                         tree log2(N) levels deep, which a cut never reaches for N <= 512
//   mx::seeded<N>(seed, lo, hi)           a vector of N uniform elements from its own seed
//   mx::check_same(what, fused, node_by_node, ulps)  two sweeps' gradients element by element
#pragma once

#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <sanitizers.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace mx {

namespace tl = tapeless;

template <int K, class S>
auto affine_chain(const S& s) {
  if constexpr (K == 0)
    return s;
  else
    return affine_chain<K - 1>(s * 0.5 + 1.0);
}

/// The terms From .. N - 1 added to `sum`, left to right. A fold expression of more than 256 terms
/// does not compile with clang (it nests them 256 deep), so each fold here adds at most 128 and the
/// next one continues from its sum. A term receives its index as a std::integral_constant: a
/// std::size_t for v[i], a template argument for tl::slice<i, L>.
template <std::size_t N, std::size_t From, class Term, class Sum>
constexpr auto index_sum_from(const Term& term, const Sum& sum) {
  if constexpr (From == N) {
    return sum;
  } else {
    constexpr std::size_t count = N - From < 128 ? N - From : 128;
    const auto more = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return (sum + ... + term(std::integral_constant<std::size_t, From + K>{}));
    }
    (std::make_index_sequence<count>{});
    return index_sum_from<N, From + count>(term, more);
  }
}
template <std::size_t N, class Term>
constexpr auto balanced_sum(const Term& term) {
  static_assert(N > 0, "mx::balanced_sum<N>: at least one term");
  return tapeless::detail::balanced_sum<0, N>(term);  // the library's, which its products use
}
template <std::size_t N, class Term>
constexpr auto index_sum(const Term& term) {
  static_assert(N > 0, "mx::index_sum<N>: at least one term");
  return index_sum_from<N, 1>(term, term(std::integral_constant<std::size_t, 0>{}));
}

template <class M>
M random(fd::rng& r, double lo, double hi) {
  M m;
  for (auto& e : m) e = static_cast<typename M::value_type>(r.uniform(lo, hi));
  return m;
}

template <class M>
M random_away(fd::rng& r, double lo, double hi, std::initializer_list<double> avoid, double margin) {
  M m;
  for (auto& e : m) e = static_cast<typename M::value_type>(r.uniform_away(lo, hi, avoid, margin));
  return m;
}

/// Element i of a matrix or the number itself, writable.
template <class V>
auto& at(V& v, std::size_t i) {
  if constexpr (tl::Matrix<V>)
    return v[i];
  else
    return v;
}
/// Element i of a matrix or the number itself, as a double.
template <class V>
double element(const V& v, std::size_t i) {
  if constexpr (tl::Matrix<V>)
    return static_cast<double>(v[i]);
  else
    return static_cast<double>(v);
}
template <class V>
constexpr std::size_t size_of() {
  if constexpr (tl::Matrix<V>)
    return V::size();
  else
    return 1;
}

template <class V>
std::string str(const V& v) {
  if constexpr (tl::Matrix<V>) {
    std::string s = "{";
    for (std::size_t i = 0; i < V::rows(); ++i) {
      s += i ? ", {" : "{";
      for (std::size_t j = 0; j < V::cols(); ++j) s += (j ? ", " : "") + fd::str(static_cast<double>(v(i, j)));
      s += "}";
    }
    return s + "}";
  } else {
    return fd::str(static_cast<double>(v));
  }
}

template <class F, class... Args>
double value_at(const F& f, const Args&... args) {
  const auto at_arguments = [&]<std::size_t... I>(std::index_sequence<I...>) {
    const auto r = f(tl::argument<I, Args>(args)...);
    if constexpr (tl::Differentiable<decltype(r)>)
      return static_cast<double>(r.value());
    else
      return static_cast<double>(r);
  };
  return at_arguments(std::index_sequence_for<Args...>{});
}

template <class F, class... Args>
std::tuple<Args...> fd_grad(const F& f, const Args&... args) {
  const std::tuple<Args...> args_at{args...};
  std::tuple<Args...> out{};
  const auto each_argument = [&]<std::size_t... K>(std::index_sequence<K...>) {
    const auto one_argument = [&]<std::size_t Arg>(std::integral_constant<std::size_t, Arg>) {
      using V = std::tuple_element_t<Arg, std::tuple<Args...>>;
      for (std::size_t i = 0; i < size_of<V>(); ++i) {
        const double x = mx::element(std::get<Arg>(args_at), i);
        at(std::get<Arg>(out), i) = static_cast<tl::scalar_of_t<V>>(fd::derivative(
            [&](double xi) {
              std::tuple<Args...> moved = args_at;
              at(std::get<Arg>(moved), i) = static_cast<tl::scalar_of_t<V>>(xi);
              return std::apply([&](const auto&... a) { return value_at(f, a...); }, moved);
            },
            x));
      }
    };
    (one_argument(std::integral_constant<std::size_t, K>{}), ...);
  };
  each_argument(std::index_sequence_for<Args...>{});
  return out;
}

template <class F, class... Args>
std::tuple<Args...> ad_grad(const F& f, const Args&... args) {
  if constexpr (sizeof...(Args) == 1)
    return std::tuple<Args...>{tl::grad(f)(args...)};
  else
    return tl::grad(f)(args...);
}

/// Every element of a against b: fd::rel_error(a_k, b_k) < tol.
template <class V>
void check_close(const std::string& label, const V& a, const V& b, double tol) {
  bool ok = true;
  for (std::size_t i = 0; i < size_of<V>(); ++i) {
    const double e = fd::rel_error(mx::element(a, i), mx::element(b, i));
    if (!(e < tol)) ok = false;
  }
  INFO(label << ": " << str(a) << " against " << str(b));
  CHECK(ok);
}

/// tl::grad(f) against finite differences, argument by argument.
template <class F, class... Args>
void check_fd(const std::string& label, const F& f, double tol, const Args&... args) {
  const auto ad = ad_grad(f, args...);
  const auto fdg = fd_grad(f, args...);
  const auto check_each = [&]<std::size_t... K>(std::index_sequence<K...>) {
    (check_close(label + " (argument " + std::to_string(K) + ")", std::get<K>(ad), std::get<K>(fdg), tol), ...);
  };
  check_each(std::index_sequence_for<Args...>{});
}

/// check_fd for a function of N elements. Its finite differences evaluate f 6 N times, and a function
/// of N elements costs O(N) or more, so the sanitizers' build, at -O0, runs them up to N = 64 only
/// (sanitizers.hpp); the gradients of larger N are checked by other means there.
template <std::size_t N, class F, class... Args>
void check_fd_at_size(const std::string& label, const F& f, double tol, const Args&... args) {
  if (N <= 64 || !test_support::address_sanitizer) check_fd(label, f, tol, args...);
}

/// Calls fn(std::type_identity<matrix<T, R, C>>{}) for the shapes 1x1, 1x4, 4x1, 3x3, 2x5.
template <class T = double, class Fn>
void for_shapes(Fn&& fn) {
  fn(std::type_identity<tl::matrix<T, 1, 1>>{});
  fn(std::type_identity<tl::matrix<T, 1, 4>>{});
  fn(std::type_identity<tl::matrix<T, 4, 1>>{});
  fn(std::type_identity<tl::matrix<T, 3, 3>>{});
  fn(std::type_identity<tl::matrix<T, 2, 5>>{});
}

template <class M>
std::string shape_name() {
  return std::to_string(M::rows()) + "x" + std::to_string(M::cols());
}

/// A vector of N uniform elements of [lo, hi], drawn from its own seed.
template <std::size_t N, class T = double>
tl::vector<T, N> seeded(std::uint64_t seed, double lo, double hi) {
  fd::rng r{seed};
  tl::vector<T, N> x;
  for (auto& e : x) e = T(r.uniform(lo, hi));
  return x;
}

/// Two gradients, the fused sweep's and the node-by-node one's, element by element: within `ulps` (two
/// NaNs agree).
template <class M>
void check_same(const std::string& what, const M& fused, const M& node_by_node, int ulps) {
  for (std::size_t i = 0; i < M::size(); ++i) {
    INFO(what << ", element " << i << ": fused " << fd::str(fused[i]) << ", node by node " << fd::str(node_by_node[i]));
    CHECK(fd::ulp_distance(fused[i], node_by_node[i]) <= ulps);
  }
}
inline void check_same(const std::string& what, double fused, double node_by_node, int ulps) {
  INFO(what << ": fused " << fd::str(fused) << ", node by node " << fd::str(node_by_node));
  CHECK(fd::ulp_distance(fused, node_by_node) <= ulps);
}

}  // namespace mx

// Failed checks print matrices with all their digits.
template <class T, std::size_t R, std::size_t C>
struct doctest::StringMaker<tapeless::matrix<T, R, C>> {
  static doctest::String convert(const tapeless::matrix<T, R, C>& m) { return mx::str(m).c_str(); }
};
