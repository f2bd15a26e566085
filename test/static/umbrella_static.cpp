// SPDX-License-Identifier: BSL-1.0
// The umbrella header leaves the threads out: it reads no <execution> (libstdc++'s include guard tells),
// whose parallel runtime's headers would cost every translation unit; <tapeless/parallel.hpp> brings it.
#include <tapeless/tapeless.hpp>

#ifdef _GLIBCXX_EXECUTION
#error "<tapeless/tapeless.hpp> includes <execution>: the sums over threads belong in <tapeless/parallel.hpp>"
#endif
