// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/fused.hpp: elementwise regions swept as one loop over the elements.
//
// exp(A) * B + c, (y - mu) / sigma: a tree of elementwise nodes (ops/elementwise.hpp) computes each
// element of its result from the same element of its operands, through the scalar operations only.
// Swept node by node, each node writes a matrix of values in the forward pass and a matrix of adjoints
// in the reverse one, and the next node reads it back: a round trip through memory per node, where a
// hand-written adjoint runs one loop that keeps everything in registers.
//
// Here the largest such tree whose value nothing reads (under sum or mean, a loss, a let's body: the
// reverse sweep needs only its adjoint) is a region. Its operands that are not elementwise (leaves,
// matmul, a number) are its inputs, evaluated once in the forward pass as usual; the region itself
// computes nothing forward. Its reverse sweep is one loop: for each element, the region's scalar tree
// (the same operations on scalar leaves: argument K for input K, whose adjoint the sweep gathers in
// slot K, or a constant for an input without adjoint) is evaluated and swept by the scalar
// engine, whose adjoints land in one slot per input; a matrix input receives a matrix of them, a
// number their sum. Then each input's own subtree is swept with its adjoint. At run time, for double,
// when every operation of the region is written for SIMD batches (simd/batch.hpp) and batches pay
// (region_in_batches), the element is a batch of elements: the same scalar tree, on xsimd::batch.
// Small regions of plain arithmetic stay node by node (fused_region).
//
// Where every input with an adjoint is a number and the loop's adjoint is the same for every element
// (under sum or mean: normal_logpdf's mu and sigma), the loop keeps the factors common to every element
// apart and multiplies each number's sum by them once, after it (sweep/scaled.hpp).
//
// A region's value computed only to be read (value_and_grad's root, a matmul operand) stays node by
// node: a fused loop would compute its elements twice, forward and again in the reverse sweep.
//
// On by default; TAPELESS_FUSE=0 (CMake option TAPELESS_FUSE=OFF), the same in every translation unit
// of a program, sweeps every region node by node: a region costs compile time (fuse_max_operations).
#pragma once

#ifndef TAPELESS_FUSE
#define TAPELESS_FUSE 1
#endif

#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/expr/unary.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/meta/type_list.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/ops/arithmetic.hpp>
#include <tapeless/ops/elementwise.hpp>
#include <tapeless/ops/shape.hpp>
#include <tapeless/simd/batch.hpp>
#include <tapeless/sweep/adjoints.hpp>
#include <tapeless/sweep/scaled.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// Elementwise nodes: a scalar operation applied to every element of a matrix operand.
template <class N>
inline constexpr bool is_elementwise_node = false;
template <class Op, class A>
inline constexpr bool is_elementwise_node<unary_node<elementwise_unary<Op>, A>> = true;
template <class Op, class A, class B>
inline constexpr bool is_elementwise_node<binary_node<elementwise_binary<Op>, A, B>> = true;

/// What a walk of the region rooted at N collects, as types: its inputs, left to right (its operands
/// that are not elementwise), and its scalar operations. A class per node type, so that a subtree is
/// walked once whichever region it is part of.
template <class N, bool = is_elementwise_node<N>>
struct region_of {
  using inputs = type_list<N>;
  using operations = type_list<>;
};
template <class Op, class A>
struct region_of<unary_node<elementwise_unary<Op>, A>, true> {
  using inputs = typename region_of<A>::inputs;
  using operations = join_t<type_list<Op>, typename region_of<A>::operations>;
};
template <class Op, class A, class B>
struct region_of<binary_node<elementwise_binary<Op>, A, B>, true> {
  using inputs = join_t<typename region_of<A>::inputs, typename region_of<B>::inputs>;
  using operations = join_t<type_list<Op>, typename region_of<A>::operations, typename region_of<B>::operations>;
};

template <class N>
using region_inputs_t = typename region_of<N>::inputs;

template <class N>
inline constexpr std::size_t region_size = region_inputs_t<N>::size;

/// Pointers to the inputs of a region, in a tuple slot each.
template <class Inputs>
struct input_pointers;
template <class... In>
struct input_pointers<type_list<In...>> {
  using type = plain_tuple<const In*...>;
};

/// Writes a pointer to each input of the region rooted at n into its slot of p, from slot K on.
template <std::size_t K, class N, class P>
constexpr void point_to_inputs(const N& n, P& p) noexcept {
  if constexpr (!is_elementwise_node<N>) {
    plain_get<K>(p) = &n;
  } else if constexpr (requires { n.arg; }) {
    point_to_inputs<K>(n.arg, p);
  } else {
    point_to_inputs<K>(n.lhs, p);
    point_to_inputs<K + region_size<std::remove_cvref_t<decltype(n.lhs)>>>(n.rhs, p);
  }
}

/// The inputs of the region rooted at n: pointers to its operands that are not elementwise.
template <class N>
constexpr auto region_inputs(const N& n) noexcept {
  typename input_pointers<region_inputs_t<N>>::type p{};
  point_to_inputs<0>(n, p);
  return p;
}

/// The type of a region's input K.
template <std::size_t K, class T>
std::type_identity<T> slot_type(const plain_slot<K, const T*>&);  // declared only: for decltype
template <class N, std::size_t K>
using region_input_t =
    typename decltype(slot_type<K>(std::declval<const typename input_pointers<region_inputs_t<N>>::type&>()))::type;

/// Whether every input of this type has the same value: an argument or a let's name, and an operation
/// without state of its own (an empty op: slice<0, 3>, transpose, matmul) on such inputs. Rosenbrock's
/// head = slice(x) used twice is then one input: one value, one adjoint, one sweep into x.
template <class N>
inline constexpr bool input_names_one_value = names_one_value<N>;
template <class Op, class A>
inline constexpr bool input_names_one_value<unary_node<Op, A>> = std::is_empty_v<Op>&& input_names_one_value<A>;
template <class Op, class A, class B>
inline constexpr bool input_names_one_value<binary_node<Op, A, B>> =
    std::is_empty_v<Op>&& input_names_one_value<A>&& input_names_one_value<B>;

/// The slot of each input of a list: that of the first input of the same type when its type names
/// one value (input_names_one_value: x used five times is one input, with one adjoint and one sweep),
/// else its own.
template <class Inputs>
struct input_slots;
template <class... In>
struct input_slots<type_list<In...>> {
  template <class X>
  static constexpr std::size_t first_of() {
    std::size_t first = 0;
    bool found = false;
    ((found = found || std::is_same_v<In, X>, first += found ? 0 : 1), ...);
    return first;
  }
  static constexpr std::array<std::size_t, sizeof...(In)> slot = [] {
    std::array<std::size_t, sizeof...(In)> s{};
    std::size_t k = 0;
    ((s[k] = input_names_one_value<In> ? first_of<In>() : k, ++k), ...);
    return s;
  }();
};

template <class Inputs, std::size_t K>
inline constexpr std::size_t input_slot = input_slots<Inputs>::slot[K];

/// The operation of a binary node of the region's scalar tree for elements of type T, whose rhs is Rhs:
/// its own, but in a loop over SIMD batches a division by a number (the same for every element: the
/// loop broadcasts it) multiplies by its reciprocal, computed once (ops::divide_by_uniform).
template <class Op, class Rhs, class T>
using element_operation = std::conditional_t<std::is_same_v<Op, ops::divide> && simd::is_batch<T> &&
                                                 !is_elementwise_node<Rhs> && !Matrix<typename Rhs::value_type>,
                                             ops::divide_by_uniform, Op>;

/// The region's scalar tree for one element of number (or batch) type T: its operations, on
/// leaves holding in[K], in[K + 1], ...: argument<slot of K> (its adjoint is that slot's), or a
/// constant. ByPosition (for scaled adjoints, sweep/scaled.hpp): argument<K> for each input K, one
/// slot each, and for a number input as well as an active one, so that its value is known to be the
/// same for every element (its adjoint, if it has none, is never read).
template <class Inputs, std::size_t K, bool ByPosition = false, class T, class N, std::size_t I>
constexpr auto element_tree(const N& n, const std::array<T, I>& in) {
  if constexpr (!is_elementwise_node<N> && ByPosition && (N::is_active || !Matrix<typename N::value_type>)) {
    return argument<K, T>(in[K]);
  } else if constexpr (!is_elementwise_node<N> && N::is_active && !ByPosition) {
    return argument<input_slot<Inputs, K>, T>(in[K]);
  } else if constexpr (!is_elementwise_node<N>) {
    return constant<T>(in[K]);
  } else if constexpr (requires { n.arg; }) {
    using A = decltype(element_tree<Inputs, K, ByPosition>(n.arg, in));
    return unary_node<decltype(n.op.op), A>(n.op.op, built_by{},
                                            [&] { return element_tree<Inputs, K, ByPosition>(n.arg, in); });
  } else {
    constexpr std::size_t KB = K + region_size<std::remove_cvref_t<decltype(n.lhs)>>;
    using A = decltype(element_tree<Inputs, K, ByPosition>(n.lhs, in));
    using B = decltype(element_tree<Inputs, KB, ByPosition>(n.rhs, in));
    using Own = decltype(n.op.op);
    using Op = element_operation<Own, std::remove_cvref_t<decltype(n.rhs)>, T>;
    const Op op = [&] {
      if constexpr (std::is_same_v<Op, Own>)
        return n.op.op;  // with its state, if it has any
      else
        return Op{};
    }();
    return binary_node<Op, A, B>(
        op, built_by{}, [&] { return element_tree<Inputs, K, ByPosition>(n.lhs, in); },
        [&] { return element_tree<Inputs, KB, ByPosition>(n.rhs, in); });
  }
}

template <class T, class N>
using element_tree_t = decltype(element_tree<region_inputs_t<N>, 0>(
    std::declval<const N&>(), std::declval<const std::array<T, region_size<N>>&>()));

/// Marks in `reads` the inputs whose value the reverse sweep of a scalar tree, evaluated as E, reads:
/// its argument leaves K computed (Need true). One walk of the tree for all inputs.
template <class E, std::size_t I>
constexpr void mark_reads(std::type_identity<E>, std::array<bool, I>&) {}  // constants
template <std::size_t K, class T, std::size_t I>
constexpr void mark_reads(std::type_identity<evaluated<argument<K, T>, true>>, std::array<bool, I>& reads) {
  reads[K] = true;
}
template <class Op, class A, bool Need, std::size_t I>
constexpr void mark_reads(std::type_identity<evaluated<unary_node<Op, A>, Need>>, std::array<bool, I>& reads) {
  mark_reads(std::type_identity<decltype(evaluated<unary_node<Op, A>, Need>::arg)>{}, reads);
}
template <class Op, class A, class B, bool Need, std::size_t I>
constexpr void mark_reads(std::type_identity<evaluated<binary_node<Op, A, B>, Need>>, std::array<bool, I>& reads) {
  mark_reads(std::type_identity<decltype(evaluated<binary_node<Op, A, B>, Need>::lhs)>{}, reads);
  mark_reads(std::type_identity<decltype(evaluated<binary_node<Op, A, B>, Need>::rhs)>{}, reads);
}

/// Which inputs' values the region's sweep reads; an input without adjoint (a constant leaf in the
/// scalar tree) is taken as read.
template <class Root>
inline constexpr auto region_read_mask = [] {
  using tree = evaluated<element_tree_t<typename Root::value_type::value_type, Root>, false>;
  std::array<bool, region_size<Root>> reads{};
  mark_reads(std::type_identity<tree>{}, reads);
  return reads;
}();

/// Whether an input is a slice of a leaf (an argument, a let's name, a constant): the loop reads its
/// elements in place, from the leaf's value, where the slice's evaluation copied them (Rosenbrock,
/// n = 256: head and tail, 255 elements each, a fifth of its time).
template <class N>
struct slice_of_leaf : std::false_type {
  static constexpr std::size_t start = 0;  // a leaf itself is its own part
};
template <std::size_t Start, std::size_t L, class A>
  requires is_leaf<A>
struct slice_of_leaf<unary_node<ops::slice<Start, L>, A>> : std::true_type {
  static constexpr std::size_t start = Start;
};
template <class N>
inline constexpr bool slices_a_leaf = slice_of_leaf<N>::value;

/// The elements of a matrix M read in place: what the loop reads of a slice of a leaf.
template <class M>
struct elements_in_place {
  const typename M::value_type* first;
};
template <class T, class M>
constexpr const T* simd_operand(const elements_in_place<M>& v) {
  return v.first;
}
template <class T, class M>
constexpr T element_at(const elements_in_place<M>& v, std::size_t i) {
  return T(v.first[i]);
}

/// The value of a region's input as its loop reads it: the input's own, or for a slice of a leaf,
/// the leaf's elements in place.
template <class In, class E>
constexpr decltype(auto) region_value(const In& input, const E& evaluation) {
  if constexpr (slices_a_leaf<In>)
    return elements_in_place<typename In::value_type>{input.arg.value().data() + slice_of_leaf<In>::start};
  else
    return value_at(input, evaluation);
}

/// Whether the region's sweep reads the value of input K: else that input's value is not computed.
/// A slice of a leaf computes none: the loop reads the leaf's.
template <class Root, std::size_t K>
inline constexpr bool region_reads =
    !slices_a_leaf<region_input_t<Root, K>> &&
    (!region_input_t<Root, K>::is_active || region_read_mask<Root>[input_slot<region_inputs_t<Root>, K>]);

/// What the region's operations are: how many, whether all run on SIMD batches of T, whether all are
/// plain arithmetic (simd::plain_arithmetic).
template <class Operations>
struct region_operations_of;
template <class... Op>
struct region_operations_of<type_list<Op...>> {
  static constexpr std::size_t count = sizeof...(Op);
  template <class T>
  static constexpr bool vectorised = (simd::vectorised<Op, T> && ...);
  static constexpr bool plain = (simd::plain_arithmetic<Op> && ...);
};
template <class N>
using region_operations_t = region_operations_of<typename region_of<N>::operations>;

/// The number of elementwise operations in the region rooted at N.
template <class N>
inline constexpr std::size_t region_operations = region_operations_t<N>::count;

/// Whether every operation of the region runs on SIMD batches of T.
template <class N, class T>
inline constexpr bool region_vectorised = region_operations_t<N>::template vectorised<T>;

/// Whether every operation of the region is plain arithmetic (simd::plain_arithmetic).
template <class N>
inline constexpr bool region_plain = region_operations_t<N>::plain;

/// Whether a number among the region's inputs receives an adjoint: the sum over the elements.
template <class Inputs>
inline constexpr bool sums_a_number = false;
template <class... In>
inline constexpr bool sums_a_number<type_list<In...>> = ((In::is_active && !Matrix<typename In::value_type>) || ...);

/// Whether the region's loop runs in SIMD batches of T: when all its operations have batch forms, and
/// some are more than plain arithmetic or it sums an adjoint. A loop of plain arithmetic into matrices
/// is left scalar, for the compiler to vectorise and unroll itself (as the maps of ops/elementwise.hpp
/// are); a sum it would not reorder into lanes.
template <class Root, class T>
inline constexpr bool region_in_batches = region_vectorised<Root, T> &&
                                          (!region_plain<Root> || sums_a_number<region_inputs_t<Root>>);

/// In place of the evaluation of an input that shares the slot of an earlier one: that one's serves.
struct evaluated_elsewhere {
  template <class N, class Shared>
  constexpr explicit evaluated_elsewhere(const N&, Shared&) noexcept {}
};

/// What the forward pass keeps of input K of a region: its evaluation if it owns its slot.
template <class Root, std::size_t K>
using input_evaluation =
    std::conditional_t<input_slot<region_inputs_t<Root>, K> == K,
                       evaluated<region_input_t<Root, K>, region_reads<Root, K>>, evaluated_elsewhere>;

/// A region whose value nothing reads: its inputs' evaluations, and no value of its own.
template <class Root, class Is>
struct region_evaluated;
template <class Root, std::size_t... K>
struct region_evaluated<Root, std::index_sequence<K...>> {
  using inputs = typename input_pointers<region_inputs_t<Root>>::type;
  plain_tuple<input_evaluation<Root, K>...> input_values;

  template <class Shared>
  constexpr region_evaluated(const Root& n, Shared& shared) : region_evaluated(region_inputs(n), shared) {}
  template <class Shared>
  constexpr region_evaluated(const inputs& in, Shared& shared)
      : input_values{{input_evaluation<Root, K>(*plain_get<K>(in), shared)}...} {}
  [[nodiscard]] constexpr const auto& value() const noexcept { return not_computed<typename Root::value_type>; }
};

/// Regions smaller than this that are plain arithmetic into matrices stay node by node: the compiler
/// unrolls such small loops completely and fuses them across nodes itself (Rosenbrock, n = 16: 17 ns
/// node by node, 30 ns as one loop; n = 256: 2.7 us node by node, 1.3 us as one loop).
inline constexpr std::size_t fuse_min_elements = 32;

/// Regions of more operations than this stay node by node. Set when a region's bookkeeping went
/// through std::tuple (test/unit/sweep/no_allocation_test.cpp, expressions of up to 45 operations,
/// g++ -O1: 135 s and 4.4 GB fused without a limit, 89 s with 16, 45 s node by node). Now that file
/// compiles in 47 s with or without it, and a chain of 64 transcendental operations over 64 elements
/// compiles (4.1 s) and runs (26 us) the same fused or not; kept against regions far larger than any
/// measured. Losses are a handful of operations (the benchmark cases, 4 to 6).
inline constexpr std::size_t fuse_max_operations = 16;

inline constexpr bool fusion_enabled = TAPELESS_FUSE != 0;
template <class N>
inline constexpr bool region_within_limit = region_operations<N> <= fuse_max_operations;

/// The elementwise trees that are swept as a region when nothing reads their value.
template <class N>
concept fused_region = fusion_enabled && is_elementwise_node<N> && region_within_limit<N> &&
    (!region_plain<N> || sums_a_number<region_inputs_t<N>> || N::value_type::size() >= fuse_min_elements);

template <class N>
using region_evaluation = region_evaluated<N, std::make_index_sequence<region_size<N>>>;

template <class Op, class A>
  requires fused_region<unary_node<elementwise_unary<Op>, A>>
struct evaluated<unary_node<elementwise_unary<Op>, A>, false>
    : region_evaluation<unary_node<elementwise_unary<Op>, A>> {
  template <class Shared = const no_shared_work>
  constexpr explicit evaluated(const unary_node<elementwise_unary<Op>, A>& n, Shared& shared = no_sharing)
      : region_evaluation<unary_node<elementwise_unary<Op>, A>>(n, shared) {}
};
template <class Op, class A, class B>
  requires fused_region<binary_node<elementwise_binary<Op>, A, B>>
struct evaluated<binary_node<elementwise_binary<Op>, A, B>, false>
    : region_evaluation<binary_node<elementwise_binary<Op>, A, B>> {
  template <class Shared = const no_shared_work>
  constexpr explicit evaluated(const binary_node<elementwise_binary<Op>, A, B>& n, Shared& shared = no_sharing)
      : region_evaluation<binary_node<elementwise_binary<Op>, A, B>>(n, shared) {}
};

/// The adjoints a scalar tree's sweep gives its inputs, one slot each, starting at -0 (the identity of
/// IEEE addition: the compiler may drop the first addition).
template <class T, std::size_t I>
struct element_adjoints {
  std::array<T, I> slot;
  constexpr element_adjoints() { slot.fill(T(-0.0)); }
  template <class Leaf, class G>
  constexpr void accumulate(const Leaf&, const G& g) {
    slot[Leaf::slot] += g;
  }
};

/// What the region's loop gathers for a matrix input In: a matrix of its adjoints.
template <class In>
struct gathered_matrix_adjoint {
  using V = typename In::value_type;
  static constexpr bool active = true, of_matrix = true, uniform = false;
  static constexpr bool claimable = is_leaf<In> || slices_a_leaf<In>;
  using element = typename V::value_type;
  V sum;
  element* out;  // where the loop writes the adjoints: sum, or the store's own sum (claim)
  bool claimed = false;
  // User-provided, so that the tuple of them is not zeroed first (value-initialization would); and the
  // matrix constructed here, not returned by a constexpr function, which g++ folds into a constant
  // whose uninitialized elements are zeros, filled in.
  constexpr gathered_matrix_adjoint() : sum(uninitialized), out(sum.data()) {}  // the loop writes all

  /// For a matrix leaf (an argument, a let's name) whose first adjoint this is: the loop writes into
  /// the store's sum of its adjoints itself, and the copy from `sum` is spared. For a slice of such a
  /// leaf, into its part of that sum, the rest zeros (the sum a slice's placed adjoint would write).
  template <class Store>
  constexpr void claim(const In& input, Store& store) {
    if constexpr (claimable) {
      const auto& leaf = [&]() -> const auto& {
        if constexpr (is_leaf<In>)
          return input;
        else
          return input.arg;
      }
      ();
      using L = typename std::remove_cvref_t<decltype(leaf)>::value_type;
      if constexpr (std::is_same_v<decltype(claim_sum(store, leaf)), L*>) {
        if (L* destination = claim_sum(store, leaf)) {
          // A leaf is its own part; a slice writes its part, and the rest of the leaf's sum is zeros.
          constexpr std::size_t start = slice_of_leaf<In>::start, end = start + V::size();
          for (std::size_t i = 0; i < start; ++i) (*destination)[i] = element(0);
          for (std::size_t i = end; i < L::size(); ++i) (*destination)[i] = element(0);
          out = destination->data() + start;
          claimed = true;
        }
      }
    }
  }
  /// Whether the adjoints are in `sum`, for In's own sweep to take.
  [[nodiscard]] constexpr bool to_sweep() const {
    if constexpr (claimable)
      return !claimed;
    else
      return true;
  }
  /// The adjoint a of element i.
  template <class T>
  constexpr void put(std::size_t i, const T& a) {
    out[i] = a;
  }
  template <std::size_t>
  constexpr void finish() {}
};

/// What the region's loop gathers for a number input In: the sum of its adjoints over the elements.
/// Where that adjoint is the same for every element (Uniform: - log(sigma) under a sum, the adjoint -1),
/// the sum is one product, n times it, which also leaves the loop without an addition per batch; that
/// product is exact where the n additions round (each of them may).
template <class In, bool Uniform>
struct gathered_sum {
  using T = typename In::value_type;
  static constexpr bool active = true, of_matrix = false, uniform = Uniform;
  T sum{-0.0};  // the identity of IEEE addition: the compiler may drop the first addition
  template <class Store>
  constexpr void claim(const In&, Store&) {}
  [[nodiscard]] static constexpr bool to_sweep() { return true; }
  /// The adjoint a of an element: any element's, where it is the same for all.
  constexpr void put(std::size_t, const T& a) {
    if constexpr (Uniform)
      sum = a;
    else
      sum += a;
  }
  /// Once the loop over N elements put their adjoints.
  template <std::size_t N>
  constexpr void finish() {
    if constexpr (Uniform) sum *= T(N);
  }
};

/// What the region's loop gathers for an input without adjoint: nothing.
template <class In>
struct not_gathered {
  static constexpr bool active = false, of_matrix = false, uniform = false;
  template <class Store>
  constexpr void claim(const In&, Store&) {}
  template <class T>
  constexpr void put(std::size_t, const T&) {}
  template <std::size_t>
  constexpr void finish() {}
};

/// What the region's loop gathers for input In: its adjoints if it has any (Active), a matrix of them
/// for a matrix, their sum for a number.
template <class In, bool Active, bool Uniform>
using gathered_adjoint = std::conditional_t<
    !Active, not_gathered<In>,
    std::conditional_t<Matrix<typename In::value_type>, gathered_matrix_adjoint<In>, gathered_sum<In, Uniform>>>;

/// Whether operation Op sends its operand Side an adjoint the same for every element when its own is:
/// x + y, x - y and -x do; x * y and x / y to x where y is a number (NumberB); x * y to y where x is.
/// (Every other operation's adjoint reads a matrix operand: a node of the region has one.)
template <class Op, std::size_t Side, bool NumberA, bool NumberB>
constexpr bool passes_uniform_adjoint() {
  if constexpr (std::is_same_v<Op, ops::add> || std::is_same_v<Op, ops::subtract> || std::is_same_v<Op, ops::negate>)
    return true;
  else if constexpr (Side == 0 && (std::is_same_v<Op, ops::multiply> || std::is_same_v<Op, ops::divide>))
    return NumberB;
  else if constexpr (Side == 1 && std::is_same_v<Op, ops::multiply>)
    return NumberA;
  else
    return false;
}

/// Marks, from `uniform` on, whether the adjoint that reaches each input of the region rooted at N is the
/// same for every element, when N's own adjoint is (`same`).
template <class N>
constexpr void mark_uniform_adjoints(bool same, bool* uniform) {
  if constexpr (!is_elementwise_node<N>) {
    *uniform = same;
  } else if constexpr (requires(const N& n) { n.arg; }) {
    using A = std::remove_cvref_t<decltype(std::declval<const N&>().arg)>;
    using Op = decltype(std::declval<const N&>().op.op);
    mark_uniform_adjoints<A>(same && passes_uniform_adjoint<Op, 0, false, false>(), uniform);
  } else {
    using A = std::remove_cvref_t<decltype(std::declval<const N&>().lhs)>;
    using B = std::remove_cvref_t<decltype(std::declval<const N&>().rhs)>;
    using Op = decltype(std::declval<const N&>().op.op);
    constexpr bool number_a = !Matrix<typename A::value_type>, number_b = !Matrix<typename B::value_type>;
    mark_uniform_adjoints<A>(same && passes_uniform_adjoint<Op, 0, number_a, number_b>(), uniform);
    mark_uniform_adjoints<B>(same && passes_uniform_adjoint<Op, 1, number_a, number_b>(), uniform + region_size<A>);
  }
}

/// Per slot of the region's inputs, whether its adjoint is the same for every element under an adjoint
/// of the root that is (under sum or mean): every input sharing the slot receives one that is.
template <class Root>
inline constexpr auto uniform_slot_adjoints = [] {
  constexpr std::size_t n = region_size<Root>;
  std::array<bool, n> per_input{}, per_slot{};
  mark_uniform_adjoints<Root>(true, per_input.data());
  per_slot.fill(true);
  constexpr auto slot = input_slots<region_inputs_t<Root>>::slot;
  for (std::size_t k = 0; k < n; ++k) per_slot[slot[k]] = per_slot[slot[k]] && per_input[k];
  return per_slot;
}();

/// Which inputs of the region rooted at Root are the same for every element: its numbers, bit K for
/// input K (the uniform leaves of sweep/scaled.hpp).
template <class Root, std::size_t... K>
constexpr std::uint64_t uniform_inputs_of(std::index_sequence<K...>) {
  return ((Matrix<typename region_input_t<Root, K>::value_type> ? std::uint64_t{0} : std::uint64_t{1} << K) | ... |
          std::uint64_t{0});
}
template <class Root>
inline constexpr std::uint64_t uniform_inputs = uniform_inputs_of<Root>(std::make_index_sequence<region_size<Root>>{});

/// Whether input K of the region rooted at Root receives an adjoint that its loop sums over the
/// elements: a number whose adjoint is not the same for every element.
template <class Root, std::size_t K>
inline constexpr bool sums_over_elements =
    region_input_t<Root, K>::is_active && !Matrix<typename region_input_t<Root, K>::value_type> &&
    !uniform_slot_adjoints<Root>[input_slot<region_inputs_t<Root>, K>];

/// Whether the region's loop under adjoint G sweeps with scaled adjoints (sweep/scaled.hpp): under sum
/// or mean, when every input with an adjoint is a number, and the loop sums some of their adjoints.
/// (A matrix's adjoints would each be multiplied by the scale: nothing saved.)
template <class Root, class G, class Is = std::make_index_sequence<region_size<Root>>>
inline constexpr bool scales_apart = false;
template <class Root, class G, std::size_t... K>
  requires(is_uniform<G> && sizeof...(K) <= 64)
inline constexpr bool scales_apart<Root, G, std::index_sequence<K...>> =
    ((!region_input_t<Root, K>::is_active || !Matrix<typename region_input_t<Root, K>::value_type>)&&...) &&
    (sums_over_elements<Root, K> || ...);

/// Whether the region rooted at Root, under adjoint G (as sweep_region takes it), runs its loop with
/// scaled adjoints (sweep_region_scaled): in SIMD batches, where scales_apart.
template <class Root, class G>
inline constexpr bool sweeps_scaled =
    TAPELESS_SIMD&& region_in_batches<Root, typename Root::value_type::value_type>&& scales_apart<Root, G>;

/// Whether N is a region whose loop runs with scaled adjoints under sum or mean: for the sweep of the
/// node above it, which clang is made to inline too.
template <class N>
inline constexpr bool scaled_under_sum = false;
template <class N>
  requires fused_region<N>
inline constexpr bool scaled_under_sum<N> = sweeps_scaled<N, uniform<typename N::value_type>>;

/// Element i of an operand of the loop (a matrix's element, or the number itself), as T.
template <class T, class V>
constexpr T element_at(const V& v, std::size_t i) {
  return T(broadcast_element(v, i));
}

/// Element i of an adjoint, which may be uniform (every element the same: under sum or mean).
template <class T, class G>
constexpr T adjoint_at(const G& g, std::size_t i) {
  if constexpr (is_uniform<G>)
    return T(g.value);
  else
    return T(g[i]);
}

/// An input's own sweep, with the adjoint the region's loop gathered for it.
template <class In, class E, class Gathered, class Store>
constexpr void sweep_input(const In& input, const E& values, const Gathered& gathered, Store& store) {
  if constexpr (Gathered::active)
    if (gathered.to_sweep()) backward_sweep(input, values, gathered.sum, store);
}

/// Input K's value (a reference into n or v), from the input owning its slot.
template <class Root, std::size_t... K>
constexpr auto region_values(const Root& n, const region_evaluated<Root, std::index_sequence<K...>>& v) {
  const auto in = region_inputs(n);
  using inputs_t = region_inputs_t<Root>;
  return plain_tuple<decltype(region_value(*plain_get<input_slot<inputs_t, K>>(in),
                                           plain_get<input_slot<inputs_t, K>>(v.input_values)))...>{
      {region_value(*plain_get<input_slot<inputs_t, K>>(in), plain_get<input_slot<inputs_t, K>>(v.input_values))}...};
}

/// One element (or one batch of elements) of the region n, a function of the Inputs inputs' values x:
/// the scalar tree at x, swept with adjoint gi. With a tag lines_part or scale_part, that part of
/// scaled adjoints (sweep/scaled.hpp), each input its own leaf.
template <std::size_t Inputs, class Root>
constexpr auto element_sweep_of(const Root& n) {
  return [&n](const auto& x, const auto& gi, auto... part) {
    using E = std::remove_cvref_t<decltype(gi)>;
    const auto tree = element_tree<region_inputs_t<Root>, 0, sizeof...(part) != 0>(n, x);
    const evaluated<std::remove_cvref_t<decltype(tree)>, false> tree_values(tree);
    std::conditional_t<sizeof...(part) != 0, adjoint_parts<E, Inputs>, element_adjoints<E, Inputs>> adjoints;
    if constexpr (sizeof...(part) != 0) {
      constexpr bool scale = (std::is_same_v<decltype(part), scale_part> || ...);
      backward_sweep(tree, tree_values, adjoint_part<E, uniform_inputs<Root>, scale>{gi}, adjoints);
    } else {
      backward_sweep(tree, tree_values, gi, adjoints);
    }
    return adjoints.slot;
  };
}

#if TAPELESS_SIMD
/// The region's loop a batch of elements at a time: element_sweep(x, g) takes the batches of the
/// inputs and of the adjoint, and returns a batch of adjoints per input. The last, partial batch is
/// padded with its first element (as in simd/batch.hpp), and only its real lanes are kept.
template <std::size_t N, class T, class Sweep, class G, class Values, class Gathered, std::size_t... K>
void sweep_region_batches(const Sweep& element_sweep, const G& g, const Values& values, Gathered& gathered,
                          std::index_sequence<K...>) {
  using B = simd::batch<T>;
  constexpr std::size_t w = simd::width<T>, inputs = sizeof...(K);
  const auto adjoint = [&g] {
    if constexpr (is_uniform<G>)
      return static_cast<T>(g.value);
    else
      return g.data();
  }();
  const plain_tuple<decltype(simd_operand<T>(plain_get<K>(values)))...> operands{
      {simd_operand<T>(plain_get<K>(values))}...};
  // An adjoint the same for every element (Out::uniform), from the first batch only: the loop leaves it.
  if constexpr ((std::remove_cvref_t<decltype(plain_get<K>(gathered))>::uniform || ...)) {
    const auto a = element_sweep(std::array<B, inputs>{simd::load_partial<T>(plain_get<K>(operands), 0, N)...},
                                 simd::load_partial<T>(adjoint, 0, N));
    (
        [&]<class Out>(Out& out) {
          if constexpr (Out::uniform) out.put(0, a[K].get(0));
        }(plain_get<K>(gathered)),
        ...);
  }
  std::array<B, inputs> sums;  // per lane, the adjoints of the numbers among the inputs
  sums.fill(B(T(-0.0)));
  std::size_t i = 0;
  for (; i + w <= N; i += w) {
    const auto a =
        element_sweep(std::array<B, inputs>{simd::load<T>(plain_get<K>(operands), i)...}, simd::load<T>(adjoint, i));
    (
        [&]<class Out>(Out& out) {
          if constexpr (Out::of_matrix)
            a[K].store_unaligned(out.out + i);
          else if constexpr (Out::active && !Out::uniform)
            sums[K] += a[K];
        }(plain_get<K>(gathered)),
        ...);
  }
  if constexpr (N % w != 0) {
    const auto a = element_sweep(std::array<B, inputs>{simd::load_partial<T>(plain_get<K>(operands), i, N - i)...},
                                 simd::load_partial<T>(adjoint, i, N - i));
    alignas(B::arch_type::alignment()) std::array<T, w> lanes;
    (
        [&] {
          a[K].store_aligned(lanes.data());
          if constexpr (!std::remove_cvref_t<decltype(plain_get<K>(gathered))>::uniform)
            for (std::size_t k = 0; i + k < N; ++k) plain_get<K>(gathered).put(i + k, lanes[k]);
        }(),
        ...);
  }
  (
      [&]<class Out>(Out& out) {
        if constexpr (Out::active && !Out::of_matrix && !Out::uniform) out.sum += xsimd::hadd(sums[K]);
        out.template finish<N>();
      }(plain_get<K>(gathered)),
      ...);
}

/// What sweep_region_batches gathers for inputs that are all numbers (sweep_region_scaled's): their
/// sums, per input. Rare (where sweep_region_scaled declined), so out of line; and all by value, the
/// region's node and its inputs' evaluations too, the inputs' values taken again from those copies:
/// nothing of the caller's is passed by address. (With the node by address, in the element sweep, and
/// the values as references into it, clang stored the node and a tuple of pointers for this call on
/// every gradient.)
template <std::size_t N, class T, class Gathered, class Root, class Evaluated, class G, std::size_t... K>
[[gnu::noinline, gnu::cold]] std::array<T, sizeof...(K)> number_adjoints_in_batches(Root n, Evaluated v, G g,
                                                                                    std::index_sequence<K...> inputs) {
  Gathered gathered;
  sweep_region_batches<N, T>(element_sweep_of<sizeof...(K)>(n), g, region_values(n, v), gathered, inputs);
  std::array<T, sizeof...(K)> sums{};
  (
      [&]<class Out>(const Out& out) {
        if constexpr (Out::active) sums[K] = out.sum;
      }(plain_get<K>(gathered)),
      ...);
  return sums;
}

/// The region's loop with scaled adjoints (sweep/scaled.hpp): the scales once, from the scalar tree of
/// the first element; per batch the lines, summed per input; each sum times its scale. Where a sum or a
/// scale is not comfortably normal, the loop of plain adjoints instead (sweep_region_batches).
/// Declared inline: g++ then inlines it where the gradient is taken, as it does the plain loop (this
/// one's size is over its limit for functions not so declared); clang is made to.
template <std::size_t N, class T, class Root, class Evaluated, class Sweep, class G, class Values, class Gathered,
          std::size_t... K>
TAPELESS_SWEEP_INLINE inline void sweep_region_scaled(const Root& n, const Evaluated& v, const Sweep& element_sweep,
                                                      const G& g, const Values& values, Gathered& gathered,
                                                      std::index_sequence<K...> inputs) {
  using B = simd::batch<T>;
  constexpr std::size_t w = simd::width<T>, count = sizeof...(K);
  const auto scale = element_sweep(std::array<T, count>{element_at<T>(plain_get<K>(values), 0)...},
                                   static_cast<T>(g.value), scale_part{});
  const plain_tuple<decltype(simd_operand<T>(plain_get<K>(values)))...> operands{
      {simd_operand<T>(plain_get<K>(values))}...};
  // Two sums per input, the batches taken in turn: with one, the loop was a chain of additions, each
  // waiting for the one before (S5: 16 of them, most of its time).
  std::array<B, count> sums, other_sums;
  sums.fill(B(T(-0.0)));
  other_sums.fill(B(T(-0.0)));
  std::array<T, count> same{};  // the lines of an adjoint the same for every element
  const auto lanes_of = [](const B& lines, const auto&... real) {
    if constexpr (sizeof...(real) == 0)
      return lines;
    else
      return xsimd::select(real..., lines, B(T(0)));
  };
  // Takes a batch's lines into `to`; in the last, partial batch only its real lanes (the padding ones'
  // selected away, not multiplied by 0, which is NaN for an infinity).
  const auto take = [&](std::array<B, count>& to, const auto& a, const auto&... real) {
    (
        [&] {
          if constexpr (sums_over_elements<Root, K>)
            to[K] += lanes_of(a[K], real...);
          else if constexpr (region_input_t<Root, K>::is_active)
            same[K] = a[K].get(0);
        }(),
        ...);
  };
  // The lines of the n elements from i (a whole batch unless n says fewer, padded as load_partial pads).
  const auto lines_at = [&](std::size_t i, std::size_t n = simd::width<T>) {
    return element_sweep(std::array<B, count>{simd::load_partial<T>(plain_get<K>(operands), i, n)...}, B(T(1)),
                         lines_part{});
  };
  std::size_t i = 0;
  for (; i + 2 * w <= N; i += 2 * w) {
    take(sums, lines_at(i));
    take(other_sums, lines_at(i + w));
  }
  if constexpr (N / w % 2 != 0) {
    take(sums, lines_at(i));
    i += w;
  }
  if constexpr (N % w != 0) take(other_sums, lines_at(i, N - i), simd::lanes_below<T>(N - i));
  // Per slot, the sum of its adjoints.
  constexpr auto slot = input_slots<region_inputs_t<Root>>::slot;
  std::array<T, count> total;
  total.fill(T(-0.0));
  bool normal = true;
  (
      [&] {
        if constexpr (sums_over_elements<Root, K>) {
          const T sum = xsimd::hadd(sums[K] + other_sums[K]);
          normal = normal && comfortably_normal(sum) && comfortably_normal(scale[K]);
          total[slot[K]] += sum * scale[K];
        } else if constexpr (region_input_t<Root, K>::is_active) {
          total[slot[K]] += same[K] * scale[K];
        }
      }(),
      ...);
  if (normal) {
    (
        [&]<class Out>(Out& out) {
          if constexpr (Out::active) out.put(0, total[K]);
          out.template finish<N>();
        }(plain_get<K>(gathered)),
        ...);
  } else {
    const auto plain = number_adjoints_in_batches<N, T, Gathered>(n, v, g, inputs);
    (
        [&]<class Out>(Out& out) {
          if constexpr (Out::active) out.sum = plain[K];
        }(plain_get<K>(gathered)),
        ...);
  }
}
#endif

/// The reverse sweep of a region, its loop over the elements, then the sweep of each input with the
/// adjoint the loop gathered for it.
template <class Root, class G, class Store, std::size_t... K>
constexpr void sweep_region(const Root& n, const region_evaluated<Root, std::index_sequence<K...>>& v, const G& g,
                            Store& store) {
  using M = typename Root::value_type;
  using T = typename M::value_type;
  constexpr std::size_t inputs = sizeof...(K);
  const auto in = region_inputs(n);
  using inputs_t = region_inputs_t<Root>;
  const auto values = region_values(n, v);
  // An adjoint gathered per input that owns its slot (the first use of x, not the others).
  plain_tuple<
      gathered_adjoint<region_input_t<Root, K>, region_input_t<Root, K>::is_active && input_slot<inputs_t, K> == K,
                       is_uniform<G> && uniform_slot_adjoints<Root>[K]>...>
      gathered;
  (plain_get<K>(gathered).claim(*plain_get<K>(in), store), ...);

  const auto element_sweep = element_sweep_of<inputs>(n);

#if TAPELESS_SIMD
  if constexpr (region_in_batches<Root, T>) {
    if (!std::is_constant_evaluated()) {
      if constexpr (scales_apart<Root, G>)
        sweep_region_scaled<M::size(), T>(n, v, element_sweep, g, values, gathered, std::index_sequence<K...>{});
      else
        sweep_region_batches<M::size(), T>(element_sweep, g, values, gathered, std::index_sequence<K...>{});
      (sweep_input(*plain_get<K>(in), plain_get<K>(v.input_values), plain_get<K>(gathered), store), ...);
      return;
    }
  }
#endif
  for (std::size_t i = 0; i < M::size(); ++i) {
    const auto a = element_sweep(std::array<T, inputs>{element_at<T>(plain_get<K>(values), i)...}, adjoint_at<T>(g, i));
    (plain_get<K>(gathered).put(i, a[K]), ...);
  }
  (plain_get<K>(gathered).template finish<M::size()>(), ...);
  (sweep_input(*plain_get<K>(in), plain_get<K>(v.input_values), plain_get<K>(gathered), store), ...);
}

}  // namespace tapeless::detail
