// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/run_time_reduction.hpp: tl::sum, tl::mean, tl::prod, tl::squared_norm, tl::norm,
// tl::dot, tl::log_sum_exp, tl::max_element and tl::min_element of arrays of run-time extents and of formulas over them
// (expr/run_time_elementwise.hpp), and tl::softmax and tl::log_softmax, formulas over a sum of them;
// and tl::matmul of two such arrays where one is a formula, whose value a node holds (stored_formula).
//
// The reduction is a tl::sum_over over tl::indices(size) whose term is the formula at element k: each
// node the formula reads becomes a parameter of the sum, read there at k (x[k], A(k / cols, k % cols))
// or as it is where it is a number; data (tl::cref, plain matrices, numbers) is read by the term itself.
// An argument read in several places (x and tl::slice(x, 1, n - 1)) is one parameter: two leaves of one
// argument slot are one value (expr/leaf.hpp, names_one_value). So the loop, its adjoints and its
// threads are those of tl::sum_over: one pass over the elements, nothing allocated per element.
// Tests: test/unit/transforms/run_time_reduction_test.cpp
//        test/unit/transforms/run_time_reduction/stored_formula_test.cpp
#pragma once

#include <tapeless/data/indices.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/expr/run_time_elementwise.hpp>
#include <tapeless/matrix/matrix_view.hpp>
#include <tapeless/meta/type_list.hpp>
#include <tapeless/ops/arithmetic.hpp>
#include <tapeless/ops/exponential.hpp>
#include <tapeless/ops/piecewise.hpp>
#include <tapeless/ops/power.hpp>
#include <tapeless/ops/products.hpp>
#include <tapeless/ops/reduction.hpp>
#include <tapeless/ops/shape.hpp>
#include <tapeless/transforms/sum_over.hpp>

#include <array>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

/// Whether a formula reads an operand as data: not a node, or a node that takes no adjoint (tl::cref).
template <class E>
inline constexpr bool formula_data = !Differentiable<E> || requires {
  requires !std::remove_cvref_t<E>::is_active;
};

/// Whether E is data that a formula reads through a node computing its value (a factorisation of
/// tl::cref data, say): the term holds that value, computed once, since each element read would compute
/// it again and point into a value gone by the next read.
template <class E>
inline constexpr bool computed_data = Differentiable<E>&& formula_data<E>&& requires(const E& e) {
  requires !std::is_reference_v<decltype(e.value())>;
};

/// The nodes a formula reads, in order, a node once for each place it appears.
template <class E>
struct formula_nodes {
  using type = std::conditional_t<formula_data<E>, type_list<>, type_list<E>>;
};
template <class Op, class... A>
struct formula_nodes<run_time_elementwise<Op, A...>> {
  using type = join_t<type_list<>, typename formula_nodes<A>::type...>;
};
template <class A, slice_kind K>
struct formula_nodes<run_time_slice<A, K>> : formula_nodes<A> {};
template <class A, bool R, bool C>
struct formula_nodes<run_time_broadcast<A, R, C>> : formula_nodes<A> {};
template <class A, class K>
struct formula_nodes<run_time_rearranged<A, K>> : formula_nodes<A> {};
template <class A, class W, bool L, class F>
struct formula_nodes<run_time_matmul<A, W, L, F>> {
  using type = join_t<typename formula_nodes<A>::type, typename formula_nodes<W>::type>;
};

template <class E>
inline constexpr std::size_t formula_node_count =
    [] { return []<class... N>(type_list<N...>) { return sizeof...(N); }(typename formula_nodes<E>::type{}); }();

/// The parameter the k-th node read of a formula (its place among formula_nodes) is: `slot[k]`, and the
/// read `first[s]` is parameter s's. Two reads of one argument (or one let name) share a parameter.
template <std::size_t M>
struct node_slots {
  std::array<std::size_t, M> slot{}, first{};
  std::array<bool, M> run_time{};  // the parameter's value has run-time extents
  std::size_t count = 0, run_time_count = 0;
};

template <class T, class... U>
inline constexpr std::array<bool, sizeof...(U)> same_type_as_each{std::is_same_v<T, U>...};

template <class... N>
constexpr node_slots<sizeof...(N)> slots_of_nodes(type_list<N...> /*nodes*/) {
  constexpr std::size_t m = sizeof...(N);
  constexpr std::array<bool, m> one_value{names_one_value<N>...};
  constexpr std::array<bool, m> run_time{RunTimeMatrix<value_type_of_t<N>>...};
  constexpr std::array<std::array<bool, m>, m> same{same_type_as_each<N, N...>...};
  node_slots<m> out;
  for (std::size_t k = 0; k < m; ++k) {
    bool shared = false;
    for (std::size_t j = 0; j < k && !shared; ++j) {
      if (one_value[k] && same[k][j]) {
        out.slot[k] = out.slot[j];
        shared = true;
      }
    }
    if (shared) continue;
    out.slot[k] = out.count;
    out.first[out.count] = k;
    out.run_time[out.count] = run_time[k];
    out.run_time_count += run_time[k] ? 1 : 0;
    ++out.count;
  }
  return out;
}

template <class E>
inline constexpr auto formula_slots = slots_of_nodes(typename formula_nodes<E>::type{});

template <class E>
inline constexpr bool is_elementwise_formula = false;
template <class Op, class... A>
inline constexpr bool is_elementwise_formula<run_time_elementwise<Op, A...>> = true;
template <class E>
inline constexpr bool is_slice_formula = false;
template <class A, slice_kind K>
inline constexpr bool is_slice_formula<run_time_slice<A, K>> = true;
template <class E>
inline constexpr bool is_broadcast_formula = false;
template <class A, bool R, bool C>
inline constexpr bool is_broadcast_formula<run_time_broadcast<A, R, C>> = true;
template <class E>
inline constexpr bool is_rearranged_formula = false;
template <class A, class K>
inline constexpr bool is_rearranged_formula<run_time_rearranged<A, K>> = true;
template <class E>
inline constexpr bool is_matmul_formula = false;
template <class A, class W, bool L, class F>
inline constexpr bool is_matmul_formula<run_time_matmul<A, W, L, F>> = true;

// The formula as the term holds it, each node read replaced by its parameter (Root: the whole formula,
// First: the place among Root's node reads of the first one in e), and its data copied, or moved out of
// a formula passed as an rvalue (tl::prod's products of the others); and the node reads themselves.
template <class Root, std::size_t First, class E>
constexpr auto term_formula(E&& e) {
  using D = std::remove_cvref_t<E>;
  if constexpr (is_elementwise_formula<D>) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      using operands = decltype(D::operands);
      constexpr std::array<std::size_t, sizeof...(I) + 1> at = [] {
        std::array<std::size_t, sizeof...(I) + 1> sum{};
        constexpr std::array<std::size_t, sizeof...(I)> count{formula_node_count<std::tuple_element_t<I, operands>>...};
        for (std::size_t k = 0; k < sizeof...(I); ++k) sum[k + 1] = sum[k] + count[k];
        return sum;
      }();
      using S = run_time_elementwise<decltype(D::op), decltype(term_formula<Root, First + at[I]>(
                                                          std::get<I>(std::forward<E>(e).operands)))...>;
      return S{{},       {},
               e.op,     {term_formula<Root, First + at[I]>(std::get<I>(std::forward<E>(e).operands))...},
               e.rows(), e.cols()};
    }
    (std::make_index_sequence<std::tuple_size_v<decltype(D::operands)>>{});
  } else if constexpr (is_slice_formula<D>) {
    using S = run_time_slice<decltype(term_formula<Root, First>(std::forward<E>(e).operand)), D::kind>;
    return S{{}, {}, term_formula<Root, First>(std::forward<E>(e).operand), e.start, e.rows(), e.cols(), e.stride};
  } else if constexpr (is_broadcast_formula<D>) {
    using O = decltype(term_formula<Root, First>(std::forward<E>(e).operand));
    return run_time_broadcast<O, D::repeat_rows, D::repeat_cols>{
        {}, {}, term_formula<Root, First>(std::forward<E>(e).operand), e.rows(), e.cols()};
  } else if constexpr (is_rearranged_formula<D>) {
    using O = decltype(term_formula<Root, First>(std::forward<E>(e).operand));
    return run_time_rearranged<O, typename D::kind>{
        {}, {}, term_formula<Root, First>(std::forward<E>(e).operand), e.rows(), e.cols()};
  } else if constexpr (is_matmul_formula<D>) {
    constexpr std::size_t after_a = First + formula_node_count<decltype(D::a)>;
    using M = decltype(term_formula<Root, First>(std::forward<E>(e).a));
    using V = decltype(term_formula<Root, after_a>(std::forward<E>(e).w));
    return run_time_matmul<M, V, D::left, typename D::w_value_type>{{},
                                                                    {},
                                                                    term_formula<Root, First>(std::forward<E>(e).a),
                                                                    term_formula<Root, after_a>(std::forward<E>(e).w),
                                                                    e.rows(),
                                                                    e.cols()};
  } else if constexpr (computed_data<D>) {
    return constant<std::remove_cvref_t<decltype(e.value())>>(e.value());
  } else if constexpr (formula_data<D>) {
    return D(std::forward<E>(e));
  } else {
    return parameter_at<formula_slots<Root>.slot[First], scalar_type_of_t<D>>{};
  }
}
template <class Op, class... A>
constexpr auto node_reads(const run_time_elementwise<Op, A...>& e);
template <class A, slice_kind K>
constexpr auto node_reads(const run_time_slice<A, K>& e);
template <class A, bool R, bool C>
constexpr auto node_reads(const run_time_broadcast<A, R, C>& e);
template <class A, class K>
constexpr auto node_reads(const run_time_rearranged<A, K>& e);
template <class A, class W, bool L, class F>
constexpr auto node_reads(const run_time_matmul<A, W, L, F>& e);
template <class E>
constexpr auto node_reads(const E& e);

template <class Op, class... A>
constexpr auto node_reads(const run_time_elementwise<Op, A...>& e) {
  return std::apply([](const auto&... a) { return std::tuple_cat(node_reads(a)...); }, e.operands);
}
template <class A, slice_kind K>
constexpr auto node_reads(const run_time_slice<A, K>& e) {
  return node_reads(e.operand);
}
template <class A, bool R, bool C>
constexpr auto node_reads(const run_time_broadcast<A, R, C>& e) {
  return node_reads(e.operand);
}
template <class A, class K>
constexpr auto node_reads(const run_time_rearranged<A, K>& e) {
  return node_reads(e.operand);
}
template <class A, class W, bool L, class F>
constexpr auto node_reads(const run_time_matmul<A, W, L, F>& e) {
  return std::tuple_cat(node_reads(e.a), node_reads(e.w));
}
template <class E>
constexpr auto node_reads(const E& e) {
  if constexpr (formula_data<E>)
    return std::tuple<>{};
  else
    return std::tuple<const E&>(e);
}

/// Element k (row-major) of x: a node or a plain value; a number is its own element.
template <class X>
constexpr decltype(auto) element_k(const X& x, std::size_t k) {
  using V = value_type_of_t<X>;
  if constexpr (run_time_vector<V> || fixed_vector<V>)
    return x[k];
  else if constexpr (RunTimeMatrix<V> || Matrix<V>)
    return x(k / x.cols(), k % x.cols());
  else
    return x;
}

// Element k of a term's formula, with the sum's parameters p.
template <class Op, class... A, class P>
constexpr auto element_at(const run_time_elementwise<Op, A...>& e, std::size_t k, const P& p);
template <class A, slice_kind K, class P>
constexpr auto element_at(const run_time_slice<A, K>& e, std::size_t k, const P& p);
template <class A, bool R, bool C, class P>
constexpr auto element_at(const run_time_broadcast<A, R, C>& e, std::size_t k, const P& p);
template <class A, class K, class P>
constexpr auto element_at(const run_time_rearranged<A, K>& e, std::size_t k, const P& p);
template <class A, class W, bool L, class F, class P>
constexpr auto element_at(const run_time_matmul<A, W, L, F>& e, std::size_t k, const P& p);
template <std::size_t K, class T, class P>
constexpr decltype(auto) element_at(parameter_at<K, T> /*read*/, std::size_t k, const P& p) {
  return element_k(std::get<K>(p), k);
}
template <class E, class P>
constexpr decltype(auto) element_at(const E& data, std::size_t k, const P& /*p*/) {
  return element_k(value_of(data), k);
}
/// Element k of tl::if_else(cond, x, y): the scalar if_else of cond's bool there, x's and y's elements.
template <class P, class C, class X, class Y>
constexpr auto select_at(std::size_t k, const P& p, const C& cond, const X& x, const Y& y) {
  return if_else(static_cast<bool>(value_of(element_at(cond, k, p))), element_at(x, k, p), element_at(y, k, p));
}
template <class Op, class... A, class P>
constexpr auto element_at(const run_time_elementwise<Op, A...>& e, std::size_t k, const P& p) {
  return std::apply(
      [&](const auto&... a) {
        if constexpr (gives_bools<Op>)  // a comparison reads values: no derivative goes through it
          return e.op(value_of(element_at(a, k, p))...);
        else if constexpr (std::is_same_v<Op, select_elements>)
          return select_at(k, p, a...);
        else if constexpr (sizeof...(A) == 1)
          return make_unary(e.op, element_at(a, k, p)...);
        else
          return make_binary(e.op, element_at(a, k, p)...);
      },
      e.operands);
}
template <class A, slice_kind K, class P>
constexpr auto element_at(const run_time_slice<A, K>& e, std::size_t k, const P& p) {
  return element_at(e.operand, e.start + k * e.stride, p);
}
template <class A, bool R, bool C, class P>
constexpr auto element_at(const run_time_broadcast<A, R, C>& e, std::size_t k, const P& p) {
  return element_at(e.operand, e.operand_element(k), p);
}
template <class A, class K, class P>
constexpr auto element_at(const run_time_rearranged<A, K>& e, std::size_t k, const P& p) {
  const std::size_t at = K::operand_element(k, e.rows(), e.cols());
  if constexpr (K::zeros_outside)
    return if_else(K::inside(k, e.cols()), element_at(e.operand, at, p), formula_number_t<A>(0));
  else
    return element_at(e.operand, at, p);
}

template <class E>
inline constexpr bool is_parameter_at = false;
template <std::size_t K, class T>
inline constexpr bool is_parameter_at<parameter_at<K, T>> = true;

/// The whole of an operand of a formula, with the sum's parameters p: a parameter, or data's value.
template <std::size_t K, class T, class P>
constexpr const auto& whole_at(parameter_at<K, T> /*read*/, const P& p) {
  return std::get<K>(p);
}
template <class E, class P>
constexpr const auto& whole_at(const E& data, const P& /*p*/) {
  return value_of(data);
}

/// term(I) for I = First .. First + Count - 1, summed as a balanced tree: its depth grows as the log of
/// Count, so that no long product cuts the term's tree (sweep/cut.hpp).
template <std::size_t First, std::size_t Count, class Term>
constexpr auto balanced_sum(const Term& term) {
  if constexpr (Count == 1)
    return term(std::integral_constant<std::size_t, First>{});
  else
    return balanced_sum<First, Count / 2>(term) + balanced_sum<First + Count / 2, Count - Count / 2>(term);
}

/// Line `index` of a fixed matrix w (a node, or plain), a row (Row) or a column, as a column vector.
template <bool Row, class W>
constexpr auto fixed_line_of(const W& w, std::size_t index) {
  if constexpr (Row)
    return transpose(row(w, index));
  else
    return col(w, index);
}

template <class E>
inline constexpr bool is_transposed = false;
template <class A>
inline constexpr bool is_transposed<run_time_rearranged<A, transposed_elements>> = true;

/// Marks the parameters of element_at where the element outlives the term (formula_element_at): a
/// product of two arrays of run-time extents then copies the data the term holds into its node.
struct element_outlives_term {};
template <class P>
constexpr bool outlives_term() {
  if constexpr (std::tuple_size_v<P> == 0)
    return false;
  else
    return std::is_same_v<std::remove_cvref_t<std::tuple_element_t<std::tuple_size_v<P> - 1, P>>,
                          element_outlives_term>;
}

/// The node of an operand of a product of two arrays of run-time extents (expr/run_time_elementwise.hpp,
/// read_in_place), a transpose's operand for a transpose: a node of f or of the sum as it is (it points
/// at its matrix), data referred to where it lies, but data the term holds (a plain matrix, copied into
/// the formula) copied where the node outlives the term (Copy), and a view copied (a pointer).
template <bool Copy, class E, class P>
constexpr auto product_operand_node(const E& e, const P& p) {
  if constexpr (is_transposed<E>) {
    return product_operand_node<Copy>(e.operand, p);
  } else {
    const auto& x = whole_at(e, p);
    using X = std::remove_cvref_t<decltype(x)>;
    if constexpr (Expression<X>)
      return x;
    else if constexpr (!is_parameter_at<E> && (Copy || !std::is_same_v<matrix_of_view_t<X>, X>))
      return constant<X>(x);
    else
      return constant_ref<X>(x);
  }
}

/// Element (i, j) of A W (of W A where Left): the dot product of A's line there and W's. A's line is,
/// of data, a constant vector of its values; of a parameter, one node reading that line (ops::fixed_line);
/// of a formula, its elements there, each times W's, summed. Where W has run-time extents too, A and W
/// are arrays (parameters or data) or their transposes, and the element is one node of the two
/// (ops::line_dot), or a number of data.
template <class A, class W, bool L, class F, class P>
constexpr auto element_at(const run_time_matmul<A, W, L, F>& e, std::size_t k, const P& p) {
  const std::size_t i = k / e.cols(), j = k % e.cols();
  if constexpr (run_time_matmul<A, W, L, F>::run_time_inner) {
    const auto a = product_operand_node<outlives_term<P>()>(e.a, p);
    const auto w = product_operand_node<outlives_term<P>()>(e.w, p);
    const ops::line_dot<is_transposed<A>, is_transposed<W>> line(i, j);
    if constexpr (decltype(a)::is_active || decltype(w)::is_active)
      return make_binary(line, a, w);
    else
      return line.value(a.value(), w.value());
  } else {
    const auto& w = whole_at(e.w, p);
    constexpr std::size_t inner = L ? F::cols() : F::rows();
    const std::size_t line = L ? j : i;                  // A's column j, or its row i
    const auto w_line = fixed_line_of<L>(w, L ? i : j);  // W's row i, or its column j
    if constexpr (is_parameter_at<A>) {
      return dot(make_unary(ops::fixed_line<inner, !L>(line), whole_at(e.a, p)), w_line);
    } else if constexpr (!RunTimeRecord<A>) {
      const auto& a = value_of(e.a);
      matrix<std::remove_cvref_t<decltype(a(0, 0))>, inner, 1> values(uninitialized);
      for (std::size_t c = 0; c < inner; ++c) values[c] = L ? a(c, line) : a(line, c);
      return dot(values, w_line);
    } else {
      return balanced_sum<0, inner>(
          [&](auto c) { return element_at(e.a, L ? c * e.cols() + line : line * inner + c, p) * w_line[c]; });
    }
  }
}

/// The term of the sum: the formula at element k.
template <class Formula>
struct formula_term {
  Formula formula;
  template <class... P>
  constexpr auto operator()(std::size_t k, const P&... p) const {
    return element_at(formula, k, std::forward_as_tuple(p...));
  }
};

/// A formula's sum runs a row at a time: stacked in batches, its element's reads through slices and
/// records cost more than the batch saves (S3 written over two slices of a run-time vector of 256: 1.4
/// times the instructions).
template <class Formula>
inline constexpr bool batches_first_block<formula_term<Formula>> = false;

/// Whether X is an argument of run-time extents whose elements lie contiguous, as a tl::matrix's do: an
/// operation that reads all of them in SIMD batches takes it as it is.
template <class X>
inline constexpr bool contiguous_argument = false;
template <std::size_t S, class T>
inline constexpr bool contiguous_argument<argument<S, T>> = RunTimeMatrix<T>&& requires(const T& t) {
  t.data();
};

/// A whole array of run-time extents: a node, data, or a formula over them.
template <class X>
concept WholeRunTimeArray = RunTimeArray<X> &&(Differentiable<X> || RunTimeMatrix<X>);

/// f(p...), p the nodes a formula E reads (reads: node_reads of it), one for each parameter of its sum,
/// in the order of the term's parameters.
template <class E, class Reads, class F>
constexpr decltype(auto) with_parameters(const Reads& reads, F&& f) {
  constexpr auto slots = formula_slots<E>;
  return [&]<std::size_t... S>(std::index_sequence<S...>)->decltype(auto) {
    return f(std::get<slots.first[S]>(reads)...);
  }
  (std::make_index_sequence<slots.count>{});
}

/// The term of the sum of a product A B of two arrays of run-time extents, over the inner index c: A's
/// column c summed times B's row c summed (ops::line_sum), so that the sum reads each operand once
/// rather than computing each element's dot product.
template <class Product>
struct product_sum_term {
  Product product;
  template <class... P>
  constexpr auto operator()(std::size_t c, const P&... p) const {
    const auto parameters = std::forward_as_tuple(p...);
    using A = decltype(product.a);
    using B = decltype(product.w);
    const auto a = product_operand_node<false>(product.a, parameters);
    const auto b = product_operand_node<false>(product.w, parameters);
    // A node of a differentiated operand's line sum; of data's, its number.
    const auto factor = [](const auto& line, const auto& x) {
      if constexpr (std::remove_cvref_t<decltype(x)>::is_active)
        return make_unary(line, x);
      else
        return line.value(x.value());
    };
    // A's column c (a row of A where A is read transposed) times B's row c.
    return factor(ops::line_sum<is_transposed<A>>(c), a) * factor(ops::line_sum<!is_transposed<B>>(c), b);
  }
};
template <class Product>
inline constexpr bool batches_first_block<product_sum_term<Product>> = false;

template <class E>
inline constexpr bool is_product_of_arrays = false;
template <class A, class W, class F>
inline constexpr bool is_product_of_arrays<run_time_matmul<A, W, false, F>> =
    run_time_matmul<A, W, false, F>::run_time_inner;

/// The sum of the elements of e: a tl::sum_over over them.
template <class E>
constexpr auto sum_of_elements(E&& e) {
  using D = std::remove_cvref_t<E>;
  const auto reads = node_reads(e);  // before the term's formula takes e's data
  if constexpr (is_product_of_arrays<D>) {
    const std::size_t inner = extents_of(e.a).cols;
    product_sum_term<decltype(term_formula<D, 0>(std::forward<E>(e)))> term{term_formula<D, 0>(std::forward<E>(e))};
    return with_parameters<D>(reads, [&](const auto&... p) { return sum_over(indices(inner), std::move(term), p...); });
  } else {
    const element_extents extents = extents_of(e);
    formula_term<decltype(term_formula<D, 0>(std::forward<E>(e)))> term{term_formula<D, 0>(std::forward<E>(e))};
    return with_parameters<D>(
        reads, [&](const auto&... p) { return sum_over(indices(extents.rows * extents.cols), std::move(term), p...); });
  }
}

/// f(k, v) for each element k of the value of e, v its value as e's sum's term computes it, from the
/// first element on (Descending: from the last) until f returns false.
template <bool Descending = false, class E, class F>
constexpr void each_element_value(const E& e, F&& f) {
  const auto term = term_formula<E, 0>(e);
  with_parameters<E>(node_reads(e), [&](const auto&... p) {
    // A node's value is computed, held here; a plain operand's is referred to where it lies.
    const std::tuple<decltype(value_of(p))...> values(value_of(p)...);
    const element_extents extents = extents_of(e);
    const std::size_t n = extents.rows * extents.cols;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t k = Descending ? n - 1 - i : i;
      if (!f(k, element_at(term, k, values))) return;
    }
  });
}

/// The elements of formula e in a matrix of type Out, of e's extents.
template <class Out, class E>
constexpr Out formula_value_in(const E& e) {
  Out out(e.rows(), e.cols(), uninitialized);  // every element written below
  each_element_value(e, [&](std::size_t k, const auto& v) { return (out(k / e.cols(), k % e.cols()) = v, true); });
  return out;
}

/// The value of a formula over arrays of run-time extents: its elements, as the sums' terms compute
/// them, in a matrix of its extents (a vector where its type makes it one).
template <class E>
constexpr auto formula_value(const E& e) {
  using T = scalar_type_of_t<E>;
  constexpr std::size_t rows = fixed_one_along<E, true>() ? 1 : dynamic;
  constexpr std::size_t cols = fixed_one_along<E, false>() ? 1 : dynamic;
  return formula_value_in<matrix<T, rows, cols>>(e);
}

/// The value of what f returns: a formula's elements (formula_value), else the value of the node,
/// data or number.
template <class R>
constexpr auto value_of_result(const R& r) {
  if constexpr (RunTimeFormula<R>)
    return formula_value(r);
  else
    return value_of(r);
}

/// The place and value of the largest (Largest) or smallest element of the value of e: the first NaN
/// where one is NaN, else the first extreme (as ops::max_element and ops::min_element pick it); -inf
/// (+inf) at place 0 where e has no elements.
template <bool Largest, class E>
constexpr auto extreme_element(const E& e) {
  using T = scalar_type_of_t<E>;
  struct extreme {
    std::size_t place;
    T value;
  };
  extreme out{0, Largest ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity()};
  each_element_value(e, [&](std::size_t k, const T& v) {
    if (v != v || k == 0 || (Largest ? v > out.value : v < out.value)) out = extreme{k, v};
    return v == v;
  });
  return out;
}

/// A vector with room for one T per element of a formula: the extents of its first operand of
/// run-time extents bound its element count (a slice or a row has no more), so a bounded one keeps
/// it inline, as tl::bounded arguments need no heap.
template <class E>
struct first_run_time_operand {
  using type = value_type_of_t<E>;
};
template <class Op, class A, class... B>
struct first_run_time_operand<run_time_elementwise<Op, A, B...>>
    : std::conditional_t<RunTimeArray<A>, first_run_time_operand<A>,
                         first_run_time_operand<run_time_elementwise<Op, B...>>> {};
template <class A, slice_kind K>
struct first_run_time_operand<run_time_slice<A, K>> : first_run_time_operand<A> {};
template <class A, bool R, bool C>
struct first_run_time_operand<run_time_broadcast<A, R, C>> {
  using type = matrix<scalar_type_of_t<A>, dynamic, dynamic>;  // repeated: as many as the result
};
/// The extents of the array of run-time extents that bounds a formula's operand A's elements.
template <class A>
using bounding_type = std::remove_cvref_t<typename first_run_time_operand<A>::type>;
template <class A, bool Rows>
constexpr std::size_t bounding_extent() {
  using V = bounding_type<A>;
  if constexpr (RunTimeMatrix<V>)
    return Rows ? V::rows_extent : V::cols_extent;
  else
    return bounded<V::size()>;  // a run-time slice of a fixed vector
}
template <class A, class W, bool L, class F>
struct first_run_time_operand<run_time_matmul<A, W, L, F>> {
  // W's extents as its type states them: fixed, or run-time where both operands are arrays of them;
  // those of the array it reads where W is read transposed.
  template <bool Rows>
  static constexpr std::size_t w_extent() {
    if constexpr (RunTimeRecord<W>)
      return bounding_extent<W, Rows>();
    else
      return extent_along<F, Rows>();
  }
  using type = std::conditional_t<L, matrix<scalar_type_of_t<A>, w_extent<true>(), bounding_extent<A, false>()>,
                                  matrix<scalar_type_of_t<A>, bounding_extent<A, true>(), w_extent<false>()>>;
};
template <class A>
struct first_run_time_operand<run_time_rearranged<A, transposed_elements>> {
  using type = matrix<scalar_type_of_t<A>, bounding_extent<A, false>(), bounding_extent<A, true>()>;
};
template <class A>
struct first_run_time_operand<run_time_rearranged<A, diagonal_elements>> {
  using type = matrix<scalar_type_of_t<A>, bounding_extent<A, true>(), 1>;
};
template <class A>
struct first_run_time_operand<run_time_rearranged<A, diagonal_matrix_elements>> {
  static constexpr std::size_t n =
      fixed_one_along<A, false>() ? bounding_extent<A, true>() : bounding_extent<A, false>();
  using type = matrix<scalar_type_of_t<A>, n, n>;
};
template <class Op, class A, class... B>
  requires RunTimeMaskFormula<A>
struct first_run_time_operand<run_time_elementwise<Op, A, B...>> : first_run_time_operand<A> {
};

/// The extent along the rows (Rows) or columns of a matrix of e's shape, one number per element of e:
/// 1 where e is one row (column) by its type; else its first run-time operand's, bounded where that is
/// (no heap), or run-time where that operand repeats along the axis and another gives the extent.
template <class E, bool Rows>
constexpr std::size_t element_extent() {
  using V = std::remove_cvref_t<typename first_run_time_operand<E>::type>;
  if constexpr (fixed_one_along<E, Rows>()) {
    return 1;
  } else if constexpr (Matrix<V>) {  // a run-time slice of a fixed vector
    return bounded<V::size()>;
  } else {
    constexpr std::size_t extent = Rows ? V::rows_extent : V::cols_extent;
    return extent == 1 ? dynamic : extent;
  }
}
template <class T, class E>
using element_matrix = matrix<T, element_extent<E, true>(), element_extent<E, false>()>;

/// The product of the elements of e: the product itself, plus a sum of terms of value 0 whose slope in
/// element k is the product of the others (ops::with_slope). Those come from prefix and suffix products,
/// no division, as ops::prod's adjoint: exact where elements are 0, and where the product over- or
/// underflows and a product of the others does not.
template <class E>
constexpr auto product_of_elements(const E& e) {
  using T = scalar_type_of_t<E>;
  T product(1);
  if constexpr (formula_node_count<E> == 0) {  // plain values: the product alone
    each_element_value(e, [&](std::size_t, const T& v) { return (product *= v, true); });
    return product;
  } else {
    const element_extents extents = extents_of(e);
    element_matrix<T, E> others(extents.rows, extents.cols);  // element k at k, row-major as e's
    each_element_value(e, [&](std::size_t k, const T& v) {    // others_k = e_0 ... e_{k-1}
      others.data()[k] = product;
      product *= v;
      return true;
    });
    T after(1);
    each_element_value<true>(e, [&](std::size_t k, const T& v) {  // times e_{k+1} ... e_{n-1}
      others.data()[k] *= after;
      after *= v;
      return true;
    });
    return product + sum_of_elements(make_binary(ops::with_slope{}, e, std::move(others)));
  }
}

/// A formula's term weighted by an adjoint of the formula's extents: g[k] times element k. Its sum's
/// partials in the formula's parameters are what the formula's adjoint g sends them.
template <class Formula, class G>
struct weighted_formula_term {
  const Formula* formula;
  const G* g;
  template <class... P>
  constexpr auto operator()(std::size_t k, const P&... p) const {
    return (*g)[k] * element_at(*formula, k, std::forward_as_tuple(p...));
  }
};
template <class Formula, class G>
inline constexpr bool batches_first_block<weighted_formula_term<Formula, G>> = false;  // as formula_term

/// The value of a formula held by a node of f (Value: the matrix of its extents), so that an operation
/// that reads an operand whole (a product of two arrays of run-time extents) can take it: the formula's
/// parameters are its operands, as packed_parameters hold them (one: unary), and its forward pass
/// computes every element once, as the formula's sum computes them. Its rule, given the adjoint g of
/// the value, runs the sum of g[k] times element k, whose partials are each operand's adjoint: one loop
/// for both operands' rules.
template <class Formula, class Value, std::size_t R, class... P>
struct stored_formula : matrix_operation, packed_parameters<R, P...> {
  static constexpr operation_traits traits{.name = "stored formula",
                                           .vjp_reads = reads{.lhs = true, .rhs = true, .value = false},
                                           .keeps_intermediates = true,
                                           .takes_run_time_extents = true};
  Formula formula;
  element_extents shape;

  /// The extents of its value, the formula's (expr/expression.hpp asks them of it).
  [[nodiscard]] constexpr element_extents extents() const noexcept { return shape; }

  /// Its value in number type S.
  template <class S>
  using value_in = matrix<S, Value::rows_extent, Value::cols_extent>;

  template <class X>
  constexpr auto value(const X& x) const {
    return computed(x);
  }
  // With two operands, the rule asked first keeps the other's partials for its rule: one loop for both
  // (not in a constant expression, where a mutable member cannot be read: each rule runs it there).
  template <class X, class Y>
    requires(!std::is_same_v<Y, value_unread_t>)  // the form every value reads (operation/protocol.hpp)
  constexpr auto forward(const X& x, const Y& y) const {
    using S = std::common_type_t<scalar_of_t<X>, scalar_of_t<Y>>;
    using Partials = decltype(partials_at(std::declval<const value_in<S>&>(), x, y));
    return with_cache<value_in<S>, held_partials<Partials>>(computed(x, y), std::in_place);
  }
  template <class G, class X, class Z>
    requires(!is_structured<G>)
  constexpr auto vjp(const G& g, const X& x, const Z& /*z*/) const {
    auto partials = partials_at(g, x);
    return std::move(plain_get<0>(partials));
  }
  template <class G, class X, class Y, class Z, class C>
    requires(!is_structured<G>)
  constexpr auto vjp_lhs(const G& g, const X& x, const Y& y, const Z& /*z*/, const C& held) const {
    auto partials = partials_at(g, x, y);
    if constexpr (std::is_same_v<decltype(partials), decltype(held.partials)>) {
      if (!std::is_constant_evaluated()) {
        held.partials = std::move(partials);
        held.full = true;
        return std::move(plain_get<R>(held.partials));
      }
    }
    return std::move(plain_get<R>(partials));
  }
  template <class G, class X, class Y, class Z, class C>
    requires(!is_structured<G>)
  constexpr auto vjp_rhs(const G& g, const X& x, const Y& y, const Z& /*z*/, const C& held) const {
    if constexpr (std::is_same_v<decltype(partials_at(g, x, y)), decltype(held.partials)>) {
      if (!std::is_constant_evaluated() && held.full) {
        held.full = false;
        return this->others_laid_out(held.partials, y);
      }
    }
    auto partials = partials_at(g, x, y);
    return this->others_laid_out(partials, y);
  }

 private:
  /// The operands' partials, held by the rule that computes them for the other's.
  template <class Partials>
  struct held_partials {
    mutable Partials partials{};
    mutable bool full = false;
  };

  template <class... X>
  constexpr auto computed(const X&... x) const {
    using S = std::common_type_t<scalar_of_t<X>...>;
    value_in<S> out(shape.rows, shape.cols);
    this->template with_parameters_of<S>(x..., [&](const auto& parameters) {
      apply_plain(
          [&](const auto&... p) {
            const auto values = std::forward_as_tuple(p...);
            for (std::size_t k = 0; k < out.size(); ++k) out[k] = static_cast<S>(element_at(formula, k, values));
          },
          parameters);
    });
    return out;
  }
  template <class G, class... X>
  constexpr auto partials_at(const G& g, const X&... x) const {
    using S = std::common_type_t<scalar_of_t<G>, scalar_of_t<X>...>;
    const weighted_formula_term<Formula, G> term{&formula, &g};
    return this->template with_parameters_of<S>(x..., [&](const auto& parameters) {
      return in_sequence{}
          .template run_time<wanted::partials, S>(indices(shape.rows * shape.cols), term, parameters)
          .partials;
    });
  }
};

/// The node holding the value of formula e (stored_formula), over the nodes it reads.
template <class E>
constexpr auto stored_formula_of(E&& e) {
  using D = std::remove_cvref_t<E>;
  using T = scalar_type_of_t<D>;
  const auto reads = node_reads(e);
  const element_extents shape = extents_of(e);
  using Formula = decltype(term_formula<D, 0>(std::forward<E>(e)));
  Formula formula = term_formula<D, 0>(std::forward<E>(e));
  return with_parameters<D>(reads, [&](const auto&... p) {
    using Value = element_matrix<T, D>;  // bounded where its operands are: no heap
    constexpr std::size_t r = first_run_time_parameter<decltype(p)...>();
    using Op = stored_formula<Formula, Value, r, in_lanes_t<double, value_type_of_t<decltype(p)>>...>;
    Op op{{}, {{extents_of(p)...}}, std::move(formula), shape};
    if constexpr (sizeof...(p) == 1) {
      return make_unary(std::move(op), p...);
    } else {
      auto all = std::forward_as_tuple(p...);
      auto others = [&]<std::size_t... J>(std::index_sequence<J...>) { return others_of<r>(std::get<J>(all)...); }
      (std::index_sequence_for<decltype(p)...>{});
      return make_binary(std::move(op), std::get<r>(all), std::move(others));
    }
  });
}

/// An operand of an operation that reads it whole: e itself where InPlace (the operation reads it where it
/// lies), else the node holding a formula's value, or of a formula of data alone its value as data.
template <bool InPlace, class E>
constexpr decltype(auto) whole_operand(E&& e) {
  using D = std::remove_cvref_t<E>;
  if constexpr (InPlace) {
    return std::forward<E>(e);
  } else if constexpr (formula_node_count<D> == 0) {
    using V = element_matrix<scalar_type_of_t<D>, D>;  // bounded where the data is: no heap
    return constant<V>(formula_value_in<V>(e));
  } else {
    return stored_formula_of(std::forward<E>(e));
  }
}

/// An operand of an operation that reads an array whole (a factorisation, tl::concat, tl::reshape): read
/// in place where it is an array (an argument, data, a node), else a formula, held first (whole_operand).
template <class E>
constexpr decltype(auto) whole_array_operand(E&& e) {
  return whole_operand<!RunTimeRecord<std::remove_cvref_t<E>>>(std::forward<E>(e));
}

/// An operand of a product of two arrays of run-time extents: read in place where it is an argument,
/// data, a node or a transpose of one.
template <class E>
constexpr decltype(auto) product_operand(E&& e) {
  return whole_operand<read_in_place<std::remove_cvref_t<E>>>(std::forward<E>(e));
}

/// Whether a product of A and B, both of run-time extents, has a formula among its operands.
template <class A, class B>
concept formula_in_product = !(read_in_place<std::remove_cvref_t<A>> && read_in_place<std::remove_cvref_t<B>>);

/// The element of e at the place extreme_element finds, as a sum of that one element (ops::picked).
template <bool Largest, class X>
constexpr auto extreme_element_of(const char* name, X&& x) {
  const element_extents extents = extents_of(x);
  if (extents.rows * extents.cols == 0)
    throw std::invalid_argument(std::string(name) + " of an array of no elements: it has no " +
                                (Largest ? "largest" : "smallest") + " element");
  const std::size_t place = extreme_element<Largest>(x).place;
  run_time_slice<std::remove_cvref_t<X>> element{{}, {}, std::forward<X>(x), place, 1, 1};
  return sum_of_elements(make_unary(ops::picked{}, std::move(element)));
}

}  // namespace detail

/// The sum of all the elements of an array of run-time extents, or of a formula over such arrays
/// (`x - tl::cref(y)`, `tl::square(tl::slice(x, 1, n - 1))`): one loop over the elements.
template <Operand X>
  requires detail::WholeRunTimeArray<X>
constexpr auto sum(X&& x) { return detail::sum_of_elements(x); }
/// Their mean: NaN for no elements (0 / 0).
template <Operand X>
  requires detail::WholeRunTimeArray<X>
constexpr auto mean(X&& x) {
  using T = scalar_type_of_t<X>;
  const detail::element_extents extents = detail::extents_of(x);
  return detail::sum_of_elements(x) / static_cast<T>(extents.rows * extents.cols);
}
/// The sum of their squares.
template <Operand X>
  requires detail::WholeRunTimeArray<X>
constexpr auto squared_norm(X&& x) {
  return detail::sum_of_elements(detail::make_unary(ops::square{}, std::forward<X>(x)));
}
/// log(sum of exp(x_i)): m + log(sum of exp(x_i - m)), m the largest element, which no exp then
/// overflows. m is a constant of the sum: the derivative of the whole in m is 0, so its gradient is
/// softmax(x) as the fixed-shape log_sum_exp's is, in one loop over the elements after the one that
/// finds m. Infinite and NaN elements as there (ops/reduction.hpp): +inf elements share the gradient,
/// all -inf (or none) gives -inf, a NaN makes everything NaN. Of an argument whose elements lie
/// contiguous (a tl::matrix, an Eigen vector or row-major matrix read in place), the fixed-shape
/// operation itself, over its run-time count: its exps in SIMD batches, kept for the rule, and no
/// second pass for m where no exp overflows.
template <Operand X>
  requires detail::WholeRunTimeArray<X>
constexpr auto log_sum_exp(X&& x) {
  if constexpr (detail::contiguous_argument<std::remove_cvref_t<X>>) {
    return detail::make_unary(ops::log_sum_exp{}, std::forward<X>(x));
  } else {
    const auto m = detail::extreme_element<true>(x).value;
    return m + log(detail::sum_of_elements(
                   detail::make_unary(ops::exp{}, detail::make_binary(ops::minus_largest{}, std::forward<X>(x), m))));
  }
}
/// exp(x_i - m) / (sum of exp(x_j - m)), m the largest element: a formula of x's extents, which a
/// reduction, tl::jacobian or f's result reads (`tl::dot(tl::cref(y), tl::softmax(z))`). The sum is a
/// number computed once; each element read computes its exp again. Infinite and NaN elements as for
/// fixed shapes: +inf elements share 1 equally, all -inf gives the uniform softmax.
template <Operand X>
  requires detail::WholeRunTimeArray<X>
constexpr auto softmax(X&& x) {
  const auto m = detail::extreme_element<true>(x).value;
  auto exps = detail::make_unary(ops::exp{}, detail::make_binary(ops::minus_largest{}, std::forward<X>(x), m));
  auto sum = detail::sum_of_elements(exps);
  return detail::make_binary(ops::divide{}, std::move(exps), std::move(sum));
}
/// (x_i - m) - log(sum of exp(x_j - m)), x - log_sum_exp(x) without its rounding: exact where softmax
/// underflows to 0, as for fixed shapes. A formula of x's extents, as softmax's.
template <Operand X>
  requires detail::WholeRunTimeArray<X>
constexpr auto log_softmax(X&& x) {
  const auto m = detail::extreme_element<true>(x).value;
  auto shifted = detail::make_binary(ops::minus_largest{}, std::forward<X>(x), m);
  auto log_sum = log(detail::sum_of_elements(detail::make_unary(ops::exp{}, shifted)));
  return detail::make_binary(ops::subtract{}, std::move(shifted), std::move(log_sum));
}
/// The Euclidean norm: s sqrt(sum of (x_i / s)^2), s the largest magnitude (1 where that is 0 or not
/// finite), so that no square overflows or underflows to 0. s is a constant of the sum, as
/// log_sum_exp's m is: the gradient is x / norm, and 0 at x = 0 as the fixed-shape norm's.
template <Operand X>
  requires detail::WholeRunTimeArray<X>
constexpr auto norm(X&& x) {
  using T = scalar_type_of_t<X>;
  const T largest = detail::extreme_element<true>(detail::make_unary(ops::abs{}, x)).value;
  const T s = largest > T(0) && largest <= std::numeric_limits<T>::max() ? largest : T(1);
  return s * detail::make_unary(ops::norm_root{},
                                detail::sum_of_elements(detail::make_unary(
                                    ops::square{}, detail::make_binary(ops::divide{}, std::forward<X>(x), s))));
}
/// The largest element: its gradient is 1 at the first arg-max (at a NaN element, NaN), 0 elsewhere,
/// as for fixed shapes. An array of no elements throws std::invalid_argument.
template <Operand X>
  requires detail::WholeRunTimeArray<X>
constexpr auto max_element(X&& x) { return detail::extreme_element_of<true>("tl::max_element", std::forward<X>(x)); }
/// The smallest element, as max_element.
template <Operand X>
  requires detail::WholeRunTimeArray<X>
constexpr auto min_element(X&& x) { return detail::extreme_element_of<false>("tl::min_element", std::forward<X>(x)); }
/// The product of the elements, 1 for no elements; its gradient is exact where elements are 0, as the
/// fixed-shape prod's. Two passes over the values find the product of the others for each element, and
/// a third is the sum of their slopes: a tl::dynamic array takes one allocation for those, a
/// tl::bounded one none.
template <Operand X>
  requires detail::WholeRunTimeArray<X>
constexpr auto prod(X&& x) { return detail::product_of_elements(x); }
/// The sum of the diagonal of a square array of run-time extents (std::invalid_argument naming the shape
/// of one that is not).
template <Operand X>
  requires detail::WholeRunTimeArray<X>
constexpr auto trace(X&& x) {
  const detail::element_extents e = detail::extents_of(x);
  if (e.rows != e.cols)
    throw std::invalid_argument("tl::trace(A): A is " + detail::shape_text(e.rows, e.cols) + ", not square");
  return detail::sum_of_elements(detail::run_time_rearranged<std::remove_cvref_t<X>, detail::diagonal_elements>{
      {}, {}, std::forward<X>(x), e.rows, 1});
}
/// A B of two arrays of run-time extents where either is a formula (`tl::matmul(W2, tl::tanh(tl::matmul(W1,
/// x) + b1))`, a second layer): the formula's value is held by a node of f (one block of its extents),
/// computed once, and the product reads it in place. That node's rule
/// pulls the product's adjoint back through the formula in one more loop over its elements.
template <Operand A, Operand B>
  requires(detail::RunTimeArray<A>&& detail::RunTimeArray<B>&& detail::formula_in_product<A, B>)
constexpr auto matmul(A&& a, B&& b) {
  return matmul(detail::product_operand(std::forward<A>(a)), detail::product_operand(std::forward<B>(b)));
}
/// a . b, where either has run-time extents: the sum of a * b, whose shapes must agree
/// (std::invalid_argument naming both).
template <Operand A, Operand B>
  requires(detail::WholeRunTimeArray<A> || detail::WholeRunTimeArray<B>)
constexpr auto dot(A&& a, B&& b) {
  detail::common_extents("tl::dot", a, b);
  return detail::sum_of_elements(detail::make_binary(ops::multiply{}, std::forward<A>(a), std::forward<B>(b)));
}

}  // namespace tapeless
