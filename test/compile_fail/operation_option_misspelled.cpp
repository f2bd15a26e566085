// SPDX-License-Identifier: BSL-1.0
// Must not compile: an operation's option misspelled (batchd), which as a member of its own would have
// left SIMD off without a word; in tl::operation_traits it is an unknown field.
// expect: no non-static data member named [^ ]*batchd|field designator [^ ]*batchd[^ ]* does not refer to any field
#include <tapeless/tapeless.hpp>

#include "twice_op.hpp"

namespace tl = tapeless;

struct twice_op : twice_rule {
#ifdef TAPELESS_COMPILE_FAIL_OK
  static constexpr tl::operation_traits traits{.name = "twice", .batched = true};
#else
  static constexpr tl::operation_traits traits{.name = "twice", .batchd = true};
#endif
};

int main() { return check_twice<twice_op>(); }
