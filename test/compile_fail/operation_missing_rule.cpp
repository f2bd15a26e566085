// SPDX-License-Identifier: BSL-1.0
// Must not compile: an operation with a value and no rule, differentiated; the error names the
// operation and the member to declare.
// expect: operation_check<[^>]*twice_value
// expect: the operation has no rule for this operand: declare `derivative\(x, y\)`
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

#include "twice_op.hpp"

namespace tl = tapeless;

int main() {
  static_assert(tl::make_unary(twice_value{}, 1.5) == 3.0);  // a value alone serves plain numbers
#ifdef TAPELESS_COMPILE_FAIL_OK
  return check_twice<twice_rule>();
#else
  return check_twice<twice_value>();
#endif
}
