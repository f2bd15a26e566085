// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/sum_over.hpp: tl::sum_over and tl::mean_over, sums over rows of run-time count.
//
// The sum is one node of the expression, over its parameters: a unary operation whose operand is the
// one parameter, or the parameters stacked in one vector (tl::concat of each flattened), so that every
// walk of the tree, every transform and the inspectors take it as they take any operation. Its forward
// pass runs the loop of sweep/sum_over_rows.hpp once, for the value and the partials in the parameters at once;
// its rule sends g times the partials. Its parameters' values may be dual numbers, so hessian, jvp and
// grad of grad run through it as through any node: the loop then runs in dual numbers.
#pragma once

#include <tapeless/adjoint/structured.hpp>
#include <tapeless/data/indices.hpp>
#include <tapeless/data/rows.hpp>
#include <tapeless/detail/arena.hpp>
#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/matrix_view.hpp>
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/operation/traits.hpp>
#include <tapeless/ops/arithmetic.hpp>
#include <tapeless/ops/shape.hpp>
#include <tapeless/sweep/run_time_rows.hpp>
#include <tapeless/sweep/sum_over_rows.hpp>

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

template <class View>
inline constexpr bool is_rows_view = false;
template <class... E>
inline constexpr bool is_rows_view<rows_view<E...>> = true;
template <>
inline constexpr bool is_rows_view<pairs_view> = true;

/// The concepts of a call with a policy first, tl::sum_over(policy, rows, body, params...), named so that
/// the overloads of <tapeless/parallel.hpp>, which add that the policy is an execution policy, are more
/// constrained than the ones below that stop the call without it.
template <class View>
concept rows_of_data = is_rows_view<View>;
template <class Policy>
concept before_rows = !is_rows_view<std::remove_cvref_t<Policy>>;
template <class Policy>
inline constexpr bool without_parallel_header = false;

/// The parameters P... read out of x: x itself for one parameter of x's type, else each from its place
/// in the vector of them all, in order (a matrix beside a parameter of run-time extents is a column).
template <class... P, class X>
constexpr auto parameters_from(const X& x) {
  using S = scalar_of_t<X>;
  if constexpr (sizeof...(P) == 1 && (!Matrix<X> || (std::is_same_v<X, in_lanes_t<S, P>> && ...))) {
    return plain_tuple<in_lanes_t<S, P>...>{{x}};
  } else {
    plain_tuple<in_lanes_t<S, P>...> p{{filled<in_lanes_t<S, P>>(0.0)}...};
    std::size_t at = 0;
    apply_plain(
        [&](auto&... each) {
          (
              [&](auto& v) {
                if constexpr (Matrix<std::remove_cvref_t<decltype(v)>>) {
                  for (std::size_t e = 0; e < v.size(); ++e) v[e] = x[at + e];
                  at += v.size();
                } else {
                  v = x[at++];
                }
              }(each),
              ...);
        },
        p);
    return p;
  }
}

/// The partials in P... laid out as x is: x's type, each in its parameter's place.
template <class X, class I, class... P>
constexpr X laid_out_as(const plain_tuple_of<I, P...>& partials) {
  if constexpr (sizeof...(P) == 1 && (!Matrix<X> || (std::is_same_v<X, P> && ...))) {
    return plain_get<0>(partials);
  } else {
    X x(uninitialized);
    std::size_t at = 0;
    apply_plain(
        [&](const auto&... each) {
          (
              [&](const auto& v) {
                if constexpr (Matrix<std::remove_cvref_t<decltype(v)>>) {
                  for (std::size_t e = 0; e < v.size(); ++e) x[at + e] = v[e];
                  at += v.size();
                } else {
                  x[at++] = v;
                }
              }(each),
              ...);
        },
        partials);
    return x;
  }
}

/// What a sum's operation holds, whatever its operands: the rows, the body and the runner (in sequence,
/// or over threads).
template <class View, class Body, class Runner>
struct sum_over_loop : matrix_operation {
  static constexpr operation_traits traits{
      .name = "sum_over", .vjp_reads = reads_value, .takes_run_time_extents = true};
  View rows;
  Body body;
  [[no_unique_address]] Runner run;
};

/// The sum over `rows` of body(row, p...), a function of the parameters P... (their values of doubles;
/// the operand may hold duals): one parameter, or all stacked in a vector. Sequential or Parallel.
template <class View, class Body, class Runner, class... P>
struct sum_over_rows : sum_over_loop<View, Body, Runner> {
  using sum_over_loop<View, Body, Runner>::rows;
  using sum_over_loop<View, Body, Runner>::body;
  using sum_over_loop<View, Body, Runner>::run;

  template <class X>
  constexpr auto forward(const X& x) const {
    return summed<wanted::both>(x);
  }
  template <class X>
  constexpr auto forward(const X& x, value_unread_t) const {
    return summed<wanted::partials>(x);
  }
  template <class G, class X, class C, class Partials>
  constexpr auto vjp(const G& g, const X&, const C&, const Partials& partials) const {
    if constexpr (Matrix<X>) {
      X gx(uninitialized);
      for (std::size_t e = 0; e < X::size(); ++e) gx[e] = g * partials[e];
      return gx;
    } else if constexpr (RunTimeMatrix<X>) {
      // Written straight into the argument's sum (adjoint/structured.hpp), a tl::matrix also for a view;
      // a gradient with no adjoint in it yet takes the partials themselves.
      return scaled_by(partials, g);
    } else {
      return g * partials;
    }
  }

 private:
  template <wanted Wanted, class X>
  constexpr auto summed(const X& x) const {
    using S = scalar_of_t<X>;
    constexpr bool with_value = wants_value(Wanted);
    if constexpr (RunTimeMatrix<X>) {
      // Read in place, its partials summed straight into one matrix of its extents
      // (sweep/run_time_rows.hpp).
      auto sum = run.template run_time<Wanted, S>(rows, body, plain_tuple<const X&>{{x}});
      using Kept = spare_kept_t<matrix_of_view_t<X>>;
      return with_cache<S, Kept>(with_value ? sum.value : S(0), std::in_place, std::move(plain_get<0>(sum.partials)));
    } else {
      return summed_fixed<Wanted>(x);
    }
  }
  template <wanted Wanted, class X>
  constexpr auto summed_fixed(const X& x) const {
    using S = scalar_of_t<X>;
    constexpr bool with_value = wants_value(Wanted);
    const auto sum = run.template operator()<Wanted, S>(rows, body, parameters_from<P...>(x));
    // One parameter of x's type: its partials are copied once, straight into the cache.
    if constexpr (sizeof...(P) == 1 && std::is_same_v<X, std::remove_cvref_t<decltype(plain_get<0>(sum.partials))>>)
      return with_cache<S, X>(with_value ? sum.value : S(0), plain_get<0>(sum.partials));
    else
      return with_cache<S, X>(with_value ? sum.value : S(0), laid_out_as<X>(sum.partials));
  }
};

/// The parameters P... with the one at R, of run-time extents, taken from x and the others from their
/// places in y, the vector of them all stacked: by reference where x lies, by value for the others.
template <std::size_t R, class... P, class X, class Y>
constexpr auto parameters_beside(const X& x, const Y& y) {
  using S = scalar_of_t<Y>;
  using all = std::tuple<P...>;
  return [&]<std::size_t... J>(std::index_sequence<J...>) {
    const auto fixed = parameters_from < std::tuple_element_t<J<R ? J : J + 1, all>...>(y);
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return plain_tuple<std::conditional_t<K == R, const X&, in_lanes_t<S, std::tuple_element_t<K, all>>>...>{
          {[&]() -> decltype(auto) {
            if constexpr (K == R)
              return (x);
            else
              return plain_get < K < R ? K : K - 1 > (fixed);
          }()}...};
    }
    (std::index_sequence_for<P...>{});
  }
  (std::make_index_sequence<sizeof...(P) - 1>{});
}

/// The forward passes of a sum's binary node and the rule of its first operand (x, of run-time extents),
/// for Derived, whose summed<Wanted>(x, y) runs the loop and keeps x's partials as `run_time` in its cache.
template <class Derived>
struct binary_sum_passes {
  template <class X, class Y>
  constexpr auto forward(const X& x, const Y& y) const {
    return static_cast<const Derived&>(*this).template summed<wanted::both>(x, y);
  }
  template <class X, class Y>
  constexpr auto forward(const X& x, const Y& y, value_unread_t) const {
    return static_cast<const Derived&>(*this).template summed<wanted::partials>(x, y);
  }
  template <class G, class X, class Y, class Z, class C>
  constexpr auto vjp_lhs(const G& g, const X&, const Y&, const Z&, const C& partials) const {
    return scaled_by(partials.run_time, g);  // straight into x's sum, which may take them
  }
};

/// The sum over `rows` of body(row, p...) where parameter R has run-time extents: a binary operation of
/// that parameter (x, read where it lies) and the others stacked in one vector (y), as the unary sum
/// stacks all of its parameters. Its forward pass runs the loop of sweep/run_time_rows.hpp once; the
/// rule sends g times x's partials straight into x's sum, and g times the others' to y.
template <class View, class Body, class Runner, std::size_t R, class... P>
struct sum_over_rows_beside : sum_over_loop<View, Body, Runner>,
                              binary_sum_passes<sum_over_rows_beside<View, Body, Runner, R, P...>> {
  using sum_over_loop<View, Body, Runner>::rows;
  using sum_over_loop<View, Body, Runner>::body;
  using sum_over_loop<View, Body, Runner>::run;

  /// The partials: in x, of its extents; in the others, laid out as y.
  template <class M, class Y>
  struct partials_of {
    spare_kept_t<M> run_time;  // read by vjp_lhs alone
    Y others;
    /// x's partials taken in (spare for x's sum where they are on the heap), the others' laid out.
    constexpr partials_of(M&& sums, Y&& rest) : run_time{std::move(sums)}, others(std::move(rest)) {}
  };

  template <class G, class X, class Y, class Z, class C>
  constexpr auto vjp_rhs(const G& g, const X&, const Y&, const Z&, const C& partials) const {
    if constexpr (Matrix<Y>) {
      Y gy(uninitialized);
      for (std::size_t e = 0; e < Y::size(); ++e) gy[e] = g * partials.others[e];
      return gy;
    } else {
      return g * partials.others;
    }
  }

 private:
  friend binary_sum_passes<sum_over_rows_beside>;
  template <wanted Wanted, class X, class Y>
  constexpr auto summed(const X& x, const Y& y) const {
    using S = scalar_of_t<Y>;
    auto sum = run.template run_time<Wanted, S>(rows, body, parameters_beside<R, P...>(x, y));
    using C = partials_of<matrix_of_view_t<X>, Y>;
    const auto others = [&]<std::size_t... J>(std::index_sequence<J...>) {
      return plain_tuple<std::remove_cvref_t<decltype(plain_get < J < R ? J : J + 1 > (sum.partials))>...>{
          {plain_get < J < R ? J : J + 1 > (sum.partials)}...};
    }
    (std::make_index_sequence<sizeof...(P) - 1>{});
    return with_cache<S, C>(wants_value(Wanted) ? sum.value : S(0), std::in_place,
                            std::move(plain_get<R>(sum.partials)), laid_out_as<Y>(others));
  }
};

/// The parameters P... of a binary operation on two or more arrays of run-time extents, as its operands
/// hold them: parameter R is the first operand (x, read where it lies), the others the second (y): the
/// other itself where there is one (read where it lies), else all of them in one vector, each flattened
/// (ops::run_time_concat), read in place through views of their extents. With one parameter, the
/// operation is unary and x is it.
template <std::size_t R, class... P>
struct packed_parameters {
  static constexpr std::size_t count = sizeof...(P);
  static constexpr bool one_other = count == 2;  // y is the other parameter itself
  std::array<element_extents, count> extents{};  // each parameter's; y holds all but R's

  /// f(p), p the parameters in order as a loop reads them, in number type S.
  template <class S, class X, class F>
  constexpr decltype(auto) with_parameters_of(const X& x, F&& f) const {
    static_assert(count == 1);
    return f(plain_tuple<const X&>{{x}});
  }
  template <class S, class X, class Y, class F>
  constexpr decltype(auto) with_parameters_of(const X& x, const Y& y, F&& f) const {
    const auto at = offsets();
    return [&]<std::size_t... K>(std::index_sequence<K...>)->decltype(auto) {
      return f(plain_tuple<decltype(this->template parameter<K, S>(x, y, 0))...>{{parameter<K, S>(x, y, at[K])}...});
    }
    (std::index_sequence_for<P...>{});
  }

  /// The partials in all but R, laid out as y: the other's own where there is one.
  template <class Partials, class Y>
  constexpr auto others_laid_out(Partials& partials, const Y& y) const {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      if constexpr (one_other) {
        return std::move(plain_get < R == 0 ? 1 : 0 > (partials));
      } else {
        const auto at = offsets();
        matrix_of_view_t<Y> o(y.rows(), y.cols());
        (
            [&] {
              if constexpr (K != R) {
                const auto& p = plain_get<K>(partials);
                if constexpr (Matrix<std::remove_cvref_t<decltype(p)>> || RunTimeMatrix<decltype(p)>)
                  for (std::size_t e = 0; e < p.size(); ++e) o[at[K] + e] = p[e];
                else
                  o[at[K]] = p;
              }
            }(),
            ...);
        return o;
      }
    }
    (std::index_sequence_for<P...>{});
  }

 private:
  template <std::size_t K>
  using param_t = std::tuple_element_t<K, std::tuple<P...>>;
  /// Where parameter K's elements start in y (packed).
  [[nodiscard]] constexpr std::array<std::size_t, count> offsets() const {
    std::array<std::size_t, count> at{};
    std::size_t next = 0;
    for (std::size_t k = 0; k < count; ++k) {
      if (k == R) continue;
      at[k] = next;
      next += extents[k].rows * extents[k].cols;
    }
    return at;
  }
  /// Parameter K: x; or y where it is the other; else read in y at `at`, through a view of its extents
  /// where they are run-time, copied where it is a fixed matrix or a number.
  template <std::size_t K, class S, class X, class Y>
  constexpr decltype(auto) parameter(const X& x, const Y& y, std::size_t at) const {
    using V = param_t<K>;
    if constexpr (K == R) {
      return (x);
    } else if constexpr (one_other) {
      return (y);
    } else if constexpr (RunTimeMatrix<V>) {
      using T = scalar_of_t<Y>;
      return dense_view<T, V::rows_extent, V::cols_extent>(y.data() + at, extents[K].rows, extents[K].cols,
                                                           extents[K].cols, 1);
    } else if constexpr (Matrix<V>) {
      in_lanes_t<S, V> v(uninitialized);
      for (std::size_t e = 0; e < V::size(); ++e) v[e] = y[at + e];
      return v;
    } else {
      return in_lanes_t<S, V>(y[at]);
    }
  }
};

/// The sum over `rows` of body(row, p...) where two or more parameters have run-time extents, held as
/// packed_parameters hold them. Its forward pass runs the loop of sweep/run_time_rows.hpp once for the
/// partials in all; the rule sends g times x's straight into x's sum, and g times the others', laid out
/// as y, to y.
template <class View, class Body, class Runner, std::size_t R, class... P>
struct sum_over_rows_packed : sum_over_loop<View, Body, Runner>,
                              binary_sum_passes<sum_over_rows_packed<View, Body, Runner, R, P...>>,
                              packed_parameters<R, P...> {
  using sum_over_loop<View, Body, Runner>::rows;
  using sum_over_loop<View, Body, Runner>::body;
  using sum_over_loop<View, Body, Runner>::run;

  /// x's partials and the others', each kept for the one rule that reads them.
  template <class M, class O>
  struct partials_of {
    spare_kept_t<M> run_time;
    spare_kept_t<O> others;
    constexpr partials_of(M&& a, O&& b) : run_time{std::move(a)}, others{std::move(b)} {}
  };

  template <class G, class X, class Y, class Z, class C>
  constexpr auto vjp_rhs(const G& g, const X&, const Y&, const Z&, const C& partials) const {
    return scaled_by(partials.others, g);
  }

 private:
  friend binary_sum_passes<sum_over_rows_packed>;
  template <wanted Wanted, class X, class Y>
  constexpr auto summed(const X& x, const Y& y) const {
    using S = std::common_type_t<scalar_of_t<X>, scalar_of_t<Y>>;
    auto sum = this->template with_parameters_of<S>(
        x, y, [&](const auto& parameters) { return run.template run_time<Wanted, S>(rows, body, parameters); });
    auto others = this->others_laid_out(sum.partials, y);
    using M = matrix_of_view_t<X>;
    return with_cache<S, partials_of<M, decltype(others)>>(wants_value(Wanted) ? sum.value : S(0), std::in_place,
                                                           std::move(plain_get<R>(sum.partials)), std::move(others));
  }
};

/// The blocks of a sum run one after another.
struct in_sequence {
  template <wanted Wanted, class T, class View, class Body, class I, class... P>
  constexpr auto operator()(const View& rows, const Body& body, const plain_tuple_of<I, P...>& params) const {
    // The rows' temporaries on the heap, not kept in a gradient's arena to its end (detail/arena.hpp).
    const heap_scope loop_on_heap;
    return sum_rows<Wanted, T>(rows, body, params);
  }
  /// The sum where a parameter has run-time extents (sweep/run_time_rows.hpp).
  template <wanted Wanted, class T, class View, class Body, class I, class... P>
  constexpr auto run_time(const View& rows, const Body& body, const plain_tuple_of<I, P...>& params) const {
    return sum_rows_run_time<Wanted, T>(rows, body, params);
  }
};

/// The number type of a sum over `View`'s rows with parameters Params: theirs, or the data's where there
/// are none.
template <class View, class... Params>
struct sum_number {
  using type = std::common_type_t<scalar_of_t<value_type_of_t<Params>>...>;
};
template <class... E>
struct sum_number<rows_view<E...>> {
  using type = std::common_type_t<scalar_of_t<std::conditional_t<is_index_column<E>, double, row_value_t<E>>>...>;
};
template <>
struct sum_number<pairs_view> {
  using type = double;
};

/// The parameter as the operand of the sum's node: a matrix flattened to a column, to be stacked.
template <class X>
constexpr decltype(auto) flattened(X&& x) {
  using V = value_type_of_t<X>;
  if constexpr (Matrix<V> && shape_of<V>.cols != 1)
    return reshape<V::size(), 1>(std::forward<X>(x));
  else
    return std::forward<X>(x);
}

/// Whether P is a node that takes an adjoint: not data, not tl::cref.
template <class P>
inline constexpr bool active_node = [] {
  if constexpr (Differentiable<P>)
    return std::remove_cvref_t<P>::is_active;
  else
    return false;
}();

/// The place of the first parameter of run-time extents among Params... that takes an adjoint, else of
/// the first of run-time extents.
template <class... Params>
constexpr std::size_t first_run_time_parameter() {
  constexpr bool run_time[] = {RunTimeMatrix<value_type_of_t<Params>>...};
  constexpr bool active[] = {(RunTimeMatrix<value_type_of_t<Params>> && active_node<Params>)...};
  for (std::size_t k = 0; k < sizeof...(Params); ++k)
    if (active[k]) return k;
  for (std::size_t k = 0; k < sizeof...(Params); ++k)
    if (run_time[k]) return k;
  return 0;
}

/// A parameter as an operand of the sum's node: plain data of run-time extents (not differentiated,
/// tl::grad<I>) copied into a constant, as the node outlives f's locals.
template <class A>
constexpr auto held_operand(const A& a) {
  if constexpr (RunTimeMatrix<A> && !Differentiable<A>)
    return constant<matrix_of_view_t<A>>(matrix_of_view_t<A>(a));
  else
    return a;
}
/// The operands a..., each held (held_operand), in one vector of all their elements (ops::run_time_concat);
/// one operand alone as it is.
template <class A>
constexpr auto stacked_run_time(const A& a) {
  return held_operand(a);
}
template <class A, class B, class... Rest>
constexpr auto stacked_run_time(const A& a, const B& b, const Rest&... rest) {
  auto tail = stacked_run_time(b, rest...);
  const element_extents ea = extents_of(a), et = extents_of(tail);
  return make_binary(ops::run_time_concat{{}, ea.rows * ea.cols, et.rows * et.cols}, held_operand(a), std::move(tail));
}

/// The parameters Params..., in order, but the one at R: themselves where there is one, else all in one
/// vector (ops::run_time_concat), each flattened.
template <std::size_t R, class... Params>
constexpr auto others_of(const Params&... params) {
  auto all = std::forward_as_tuple(params...);
  return [&]<std::size_t... J>(std::index_sequence<J...>) {
    return stacked_run_time(std::get<(J < R ? J : J + 1)>(all)...);
  }
  (std::make_index_sequence<sizeof...(Params) - 1>{});
}

/// tl::sum_over with the runner `run` (in sequence or over threads), over a view tl::rows has read.
template <class Runner, class View, class Body, class... Params>
constexpr auto sum_over_read(const Runner& run, const View& rows, Body body, Params&&... params) {
  using T = typename sum_number<View, Params...>::type;
  using Term = typename term_of<Body, T, wanted::value, View, in_lanes_t<T, value_type_of_t<Params>>...>::type;
  constexpr bool number = !Matrix<value_type_of_t<Term>> && !ShapeError<Term>;  // a failed check has spoken
  static_assert(number || ShapeError<Term>,
                "tl::sum_over(rows, body, params...): body must return a number; sum a matrix's elements inside "
                "body with tl::sum");
  // The term with the parameters as arguments is built only where the first has passed its checks.
  constexpr bool own_leaves = [] {
    if constexpr (!number)
      return true;
    else
      return reads_parameters_only<
          typename term_of<Body, T, wanted::partials, View, in_lanes_t<T, value_type_of_t<Params>>...>::type>();
  }();
  static_assert(own_leaves,
                "tl::sum_over(rows, body, params...): body reads an expression of f that it captures; pass that "
                "expression to body as one of params instead");
  // NOLINTNEXTLINE(bugprone-branch-clone): apart from the last branch, whose check is asked only there
  if constexpr (!number || !own_leaves) {
    return T(0);
  } else if constexpr (!(Differentiable<Params> || ...)) {
    // The term's own number type where body brings a wider one: dual numbers it captures, as f run by
    // tl::jvp holds them.
    using U = std::common_type_t<T, scalar_of_t<value_type_of_t<Term>>>;
    if constexpr ((RunTimeMatrix<Params> || ...)) {
      // Read where they lie (sweep/run_time_rows.hpp).
      return run.template run_time<wanted::value, U>(rows, body, plain_tuple<const Params&...>{{params}...}).value;
    } else {
      const plain_tuple<in_lanes_t<U, value_type_of_t<Params>>...> values{{params}...};
      return run.template operator()<wanted::value, U>(rows, body, values).value;
    }
  } else if constexpr ((RunTimeMatrix<value_type_of_t<Params>> + ... + 0) > 1) {
    // Two or more of run-time extents: the first differentiated one an operand of its own, the others
    // the second operand.
    constexpr std::size_t r = first_run_time_parameter<Params...>();
    using Op = sum_over_rows_packed<View, Body, Runner, r, in_lanes_t<double, value_type_of_t<Params>>...>;
    Op op{{{}, rows, std::move(body), run}, {}, {{extents_of(params)...}}};
    auto all = std::forward_as_tuple(std::forward<Params>(params)...);
    auto others = [&]<std::size_t... J>(std::index_sequence<J...>) { return others_of<r>(std::get<J>(all)...); }
    (std::index_sequence_for<Params...>{});
    return make_binary(std::move(op), held_operand(std::get<r>(all)), std::move(others));
  } else if constexpr (sizeof...(Params) == 1 || !(RunTimeMatrix<value_type_of_t<Params>> || ...)) {
    using Op = sum_over_rows<View, Body, Runner, in_lanes_t<double, value_type_of_t<Params>>...>;
    Op op{{{}, rows, std::move(body), run}};
    if constexpr (sizeof...(Params) == 1)
      return make_unary(std::move(op), std::forward<Params>(params)...);
    else
      return make_unary(std::move(op), concat(flattened(std::forward<Params>(params))...));
  } else {
    // One parameter of run-time extents beside the others: an operand of its own.
    constexpr std::size_t r = first_run_time_parameter<Params...>();
    using Op = sum_over_rows_beside<View, Body, Runner, r, in_lanes_t<double, value_type_of_t<Params>>...>;
    Op op{{{}, rows, std::move(body), run}, {}};
    auto all = std::forward_as_tuple(std::forward<Params>(params)...);
    // Plain data there (not differentiated, tl::grad<I>) is copied into the node, which outlives f's
    // locals; body reads data it captures by reference in place.
    const auto run_time = [&]() -> decltype(auto) {
      using X = std::remove_cvref_t<std::tuple_element_t<r, std::tuple<Params...>>>;
      if constexpr (Differentiable<X>)
        return std::get<r>(all);
      else
        return constant<X>(std::get<r>(all));
    };
    return [&]<std::size_t... J>(std::index_sequence<J...>) {
      if constexpr (sizeof...(J) == 1)
        return make_binary(std::move(op), run_time(), flattened(std::get<(J < r ? J : J + 1)>(all))...);
      else
        return make_binary(std::move(op), run_time(), concat(flattened(std::get<(J < r ? J : J + 1)>(all))...));
    }
    (std::make_index_sequence<sizeof...(Params) - 1>{});
  }
}

/// Whether a view holds a column tl::rows refused.
template <class View>
inline constexpr bool reads_unread_column = false;
template <class... E>
inline constexpr bool reads_unread_column<rows_view<E...>> = (std::is_same_v<E, unread_column> || ...);

/// tl::sum_over with the runner `run` (in sequence or over threads).
template <class Runner, class View, class Body, class... Params>
constexpr auto sum_over_with(const Runner& run, const View& rows, Body body, Params&&... params) {
  using T = typename sum_number<View, Params...>::type;
  if constexpr (reads_unread_column<View>) {
    return T(0);  // tl::rows has refused a column (its static_assert): body is not instantiated on it
  } else {
    return sum_over_read(run, rows, std::move(body), std::forward<Params>(params)...);
  }
}

/// sum / the row count, where sum is a number or a node.
template <class View, class Sum>
constexpr auto per_row(const View& rows, Sum&& sum) {
  using T = scalar_of_t<value_type_of_t<Sum>>;
  return std::forward<Sum>(sum) / static_cast<T>(rows.size());
}

}  // namespace detail

/// The sum over rows of body(row..., params...): Σᵢ body(c1[i], c2[i], ..., params...) for
/// rows = tl::rows(c1, c2, ...). body is generic in all its parameters; it receives the row's values as
/// constants (numbers, or fixed-shape matrices) and then params as they are given: expressions of f's
/// arguments, or plain numbers and matrices. It may be called with a SIMD batch of rows at once, so it
/// uses tl:: functions and does not branch on the row's values. The result is a number expression like
/// any other (differentiable again: hessian, jvp, grad of grad); with plain params, a plain number. Over
/// no rows it is 0. Nothing is allocated, and the sweep reads each row once.
///
///   auto loss = [&](const auto& a, const auto& b, const auto& c) {
///     return tl::sum_over(tl::rows(t, y), [](const auto& ti, const auto& yi, const auto& a, const auto& b,
///                                            const auto& c) { return tl::square(a * tl::exp(-b * ti) + c - yi); },
///                         a, b, c);
///   };
template <class View, class Body, class... Params>
  requires detail::is_rows_view<View>
constexpr auto sum_over(const View& rows, Body body, Params&&... params) {
  return detail::sum_over_with(detail::in_sequence{}, rows, std::move(body), std::forward<Params>(params)...);
}

/// tl::sum_over divided by the row count: NaN over no rows (0 / 0).
template <class View, class Body, class... Params>
  requires detail::is_rows_view<View>
constexpr auto mean_over(const View& rows, Body body, Params&&... params) {
  return detail::per_row(rows, sum_over(rows, std::move(body), std::forward<Params>(params)...));
}

/// tl::sum_over(policy, rows, body, params...) without <tapeless/parallel.hpp>: stopped with the header
/// to include, so that the umbrella header stays free of <execution> and its threads.
template <class Policy, class View, class Body, class... Params>
  requires detail::before_rows<Policy> && detail::rows_of_data<View>
constexpr auto sum_over(Policy&&, const View& rows, Body body, Params&&... params) {
  static_assert(detail::without_parallel_header<Policy>,
                "tl::sum_over(policy, rows, body, params...) with an execution policy needs #include "
                "<tapeless/parallel.hpp>");
  return sum_over(rows, std::move(body), std::forward<Params>(params)...);
}

/// tl::mean_over(policy, rows, body, params...) without <tapeless/parallel.hpp>: stopped likewise.
template <class Policy, class View, class Body, class... Params>
  requires detail::before_rows<Policy> && detail::rows_of_data<View>
constexpr auto mean_over(Policy&&, const View& rows, Body body, Params&&... params) {
  static_assert(detail::without_parallel_header<Policy>,
                "tl::mean_over(policy, rows, body, params...) with an execution policy needs #include "
                "<tapeless/parallel.hpp>");
  return mean_over(rows, std::move(body), std::forward<Params>(params)...);
}

}  // namespace tapeless
