// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/linear_algebra.hpp: the matrix operations, products and factorisations.
// Tests: test/unit/ops/products_test.cpp test/unit/ops/factorisations/
#pragma once

#include <tapeless/ops/factorisations.hpp>
#include <tapeless/ops/products.hpp>
