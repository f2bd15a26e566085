// SPDX-License-Identifier: BSL-1.0
// tapeless/operation/traits.hpp: the options of an operation, stated in one member.
//
// An operation states its options as one member,
//
//   static constexpr tl::operation_traits traits{.name = "exp", .batched = true, .vjp_reads = tl::reads_value};
//
// built with designated initializers, so that a misspelled option is a compile error rather than an
// option silently left at its default. Every option may be left out; an operation without `traits`
// has them all at their defaults. The engine reads them through the accessors below, never by name.
// (The members an operation must have, its value and its rule, are in concepts/operation.hpp.)
// Tests: test/unit/concepts/operation_test.cpp
#pragma once

#include <tapeless/simd/batch.hpp>

#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

namespace tapeless {

/// What an operation's backward rule reads of the forward pass: the values of its operands (lhs, and
/// rhs for a binary operation) and its own value (with its cache). grad's forward pass computes a value
/// only where some rule, or the caller, reads it. A wrong `false` here is a wrong gradient: the tests
/// check every rule.
struct reads {
  bool lhs = true;
  bool rhs = true;
  bool value = true;
};
inline constexpr reads reads_nothing{false, false, false};
inline constexpr reads reads_operands{true, true, false};
inline constexpr reads reads_value{false, false, true};

/// The form of an operation's local derivatives, where it is one of the few a fused loop sweeps with
/// the factors common to every element kept apart (sweep/adjoint_parts.hpp) and where a number's
/// adjoint stays the same for every element (sweep/region_gathered.hpp): -x (negation, -1), x^2
/// (square, 2 x), x + y (sum, 1 and 1), x - y (difference, 1 and -1), x y (product, y and x), x / y
/// (quotient, 1 / y and -z / y). Any other operation is `general`: its rule is called as it is.
enum class partials_form { general, negation, square, sum, difference, product, quotient };

/// The options of an operation.
struct operation_traits {
  /// What the inspectors (tl::trace, the graph's text and DOT forms) print for the operation.
  std::string_view name = "op";
  /// Whether its value and rule are written for SIMD batches as well as numbers: every branch on its
  /// operands a math::lazy_select or math::select (a batch takes both sides), every function one of
  /// math/batch_functions.hpp. Its loops over the elements of a matrix then run a batch at a time.
  bool batched = false;
  /// Whether it is plain arithmetic (+ - * /, negation, square), whose scalar loops the compiler
  /// vectorises itself and fuses with the neighbouring nodes': its maps over elements stay scalar even
  /// when `batched`; its sums over elements (the adjoint of a number used for every element) still run
  /// in batches, as the compiler may not reorder those.
  bool plain_arithmetic = false;
  /// What its rule reads (for a binary operation: both adjoints' rules); all of it by default.
  reads vjp_reads{};
  /// For a binary operation whose two adjoints read different things: what the rule of the lhs's, and
  /// of the rhs's, adjoint reads. Unstated, `vjp_reads`.
  std::optional<reads> lhs_vjp_reads{};
  std::optional<reads> rhs_vjp_reads{};
  /// Whether its value and rule take numbers that are SIMD batches of rows, and matrices of them: the
  /// term of tl::sum_over then runs a batch of rows at once (sweep/sum_over_rows.hpp). A `batched` or
  /// `plain_arithmetic` operation does without saying; others state it, such as the reductions and
  /// products whose loops are plain sums of products.
  bool batches_rows = false;
  /// The form of its local derivatives, where it is one that the engine's loops take apart (see
  /// partials_form); the rule, which the form must agree with, is what computes them.
  partials_form partials = partials_form::general;
  /// For an operation whose value is its operand's elements in order from this one on (a slice): a
  /// loop over its value may read them in place, from its operand's value.
  std::optional<std::size_t> elements_from{};
  /// Whether each element of its value is an element of an operand or a constant, at a position fixed
  /// by its type (a slice, a block, a transpose, a concatenation): tl::sparse_hessian reads a formula
  /// of such parts of its argument element by element (sweep/elementwise_terms.hpp). Not for a part at
  /// a run-time position (an element, a row at an index).
  bool selects_elements = false;
  /// Whether it keeps intermediates of run-time size for its rule (factors, a value held for a product
  /// or a factorisation): its passes, and the dense adjoints its rule takes, then take their room from
  /// the gradient's arena (detail/arena.hpp) rather than one allocation each.
  bool keeps_intermediates = false;
  /// Whether it takes an operand of run-time extents (a tl::vector<double, tl::dynamic> argument): an
  /// element, a row or a column, which read a part of fixed shape, and tl::sum_over, whose loop takes
  /// its parameter's extents at run time (sweep/run_time_rows.hpp). No other rule is written for them.
  bool takes_run_time_extents = false;
};

namespace detail {

/// The options of Op: its `traits`, or the defaults.
template <class Op>
constexpr operation_traits traits_of() {
  if constexpr (requires { Op::traits; }) {
    static_assert(std::is_same_v<std::remove_cv_t<decltype(Op::traits)>, operation_traits>,
                  "an operation's `traits` must be a `static constexpr tl::operation_traits`");
    return Op::traits;
  } else {
    return operation_traits{};
  }
}

/// The name the inspectors print for Op.
template <class Op>
inline constexpr std::string_view operation_name = traits_of<Op>().name;

/// Whether Op runs on SIMD batches of rows (option `batches_rows`, or `batched` or `plain_arithmetic`).
template <class Op>
inline constexpr bool runs_on_row_batches = traits_of<Op>().batched || traits_of<Op>().plain_arithmetic
                                            || traits_of<Op>().batches_rows;
/// The form of Op's local derivatives (option `partials`).
template <class Op>
inline constexpr partials_form partials_of = traits_of<Op>().partials;

/// Where Op's value starts among its operand's elements, read in place (option `elements_from`).
template <class Op>
inline constexpr std::optional<std::size_t> elements_from = traits_of<Op>().elements_from;

namespace simd {

/// Whether op's loops over elements of T run in batches at run time (option `batched`).
template <class Op, class T>
concept vectorised = available<T> && traits_of<Op>()
.batched;

/// Whether op is plain arithmetic (option `plain_arithmetic`).
template <class Op>
inline constexpr bool plain_arithmetic = traits_of<Op>().plain_arithmetic;

/// Whether op's map over elements of T (a value per element) runs in batches: not for plain arithmetic,
/// whose scalar loops fuse with the neighbouring nodes' where batches would go through memory.
template <class Op, class T>
concept vectorised_map = vectorised<Op, T> && !plain_arithmetic<Op>;

}  // namespace simd
}  // namespace detail
}  // namespace tapeless
