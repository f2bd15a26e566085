// SPDX-License-Identifier: BSL-1.0
// Must not compile: a kind of node that does not state its children (expr/children.hpp) is not walked
// as if it were a leaf. The first walk that meets it (depth_of, when exp makes a node above it) stops
// with one sentence naming the walk; the compiler names the kind N beside it. Its twin states
// the kind's children and compiles.
// expect: tl: node kind N is not known to the walk depth_of: declare its children in expr/children.hpp
// expect: depth_of<dummy_node>
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

/// A node of a kind the library does not have: its operand's value, as it is.
struct dummy_node : tl::expression<dummy_node> {
  using value_type = double;
  static constexpr bool is_active = false;
  tl::constant<double> operand;
  constexpr explicit dummy_node(double v) : operand(v) {}
  [[nodiscard]] constexpr double value() const { return operand.value(); }
};

#ifdef TAPELESS_COMPILE_FAIL_OK
template <>
struct tl::detail::node_traits<dummy_node> : tl::detail::node_traits_defaults {
  using children = tl::detail::children<&dummy_node::operand>;
};
#endif

int main() {
  const auto e = tl::exp(dummy_node(0.0));
  return e.value() > 0.0 ? 0 : 1;
}
