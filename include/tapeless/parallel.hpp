// SPDX-License-Identifier: BSL-1.0
// tapeless/parallel.hpp: the whole library, and tl::sum_over and tl::mean_over over threads under
// std::execution::par. `#include <tapeless/parallel.hpp>` in place of <tapeless/tapeless.hpp>.
// Tests: test/unit/transforms/sum_over_parallel_test.cpp test/static/umbrella_static.cpp
//
// Apart from the umbrella header so that only a program that asks for threads reads <execution>, which
// brings the parallel runtime's headers (TBB's with libstdc++) and a fifth of a second to each
// translation unit, and needs that runtime linked (the tapeless::tapeless target links it where found).
#pragma once

#include <tapeless/tapeless.hpp>

#include <tapeless/transforms/sum_over_parallel.hpp>
