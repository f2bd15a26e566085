// SPDX-License-Identifier: BSL-1.0
// Must not compile: an operation stating an option as a member of its own, which the engine does not
// read; the error says where options go.
// expect: declare `static constexpr tl::operation_traits traits{...}`
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

#include "twice_op.hpp"

namespace tl = tapeless;

struct twice_op : twice_rule {
#ifdef TAPELESS_COMPILE_FAIL_OK
  static constexpr tl::operation_traits traits{.batched = true};
#else
  static constexpr bool batched = true;
#endif
};

int main() { return check_twice<twice_op>(); }
