// SPDX-License-Identifier: BSL-1.0
// The normal log-density of benchmark case S5, sum_i -((y_i - mu) / sigma)^2 / 2 - log sigma - log(2 pi) / 2,
// as a function of (mu, sigma) for tl::grad, and its exact gradient: the fused and unfused sweep tests
// check a region that sums the adjoints of two numbers with it.
#pragma once

#include <tapeless/tapeless.hpp>

#include <utility>

namespace normal_logpdf {

/// f(mu, sigma) over the data y, which must outlive f.
template <class Y>
auto function(const Y& y) {
  return [&y](const auto& mu, const auto& sigma) {
    const auto z = (y - mu) / sigma;
    return tapeless::sum(-0.5 * tapeless::square(z) - tapeless::log(sigma) - 0.9189385332046727);
  };
}

/// (d/dmu, d/dsigma) = (sum_i z_i / sigma, sum_i (z_i^2 - 1) / sigma), z_i = (y_i - mu) / sigma.
template <class Y>
std::pair<double, double> exact_gradient(const Y& y, double mu, double sigma) {
  double d_mu = 0, d_sigma = 0;
  for (const double v : y) {
    const double z = (v - mu) / sigma;
    d_mu += z / sigma;
    d_sigma += z * z / sigma - 1 / sigma;
  }
  return {d_mu, d_sigma};
}

}  // namespace normal_logpdf
