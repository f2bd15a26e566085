// SPDX-License-Identifier: BSL-1.0
// Seeing the sweep: the evaluation trace of the walkthrough function (x1 - x2)^2 + cos(x1 + x2) at
// (1, 2) and of a small logistic-regression loss, and, given a folder, their graphs as Graphviz DOT
// files (doc/render.sh renders them to the PNGs of the user guide).
//
//   example_trace_walkthrough            # prints both traces
//   example_trace_walkthrough out/       # also writes out/walkthrough.dot, out/logistic_regression.dot
#include <tapeless/tapeless.hpp>

#include <fstream>
#include <iostream>
#include <string>

namespace tl = tapeless;

namespace {

bool write(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  const auto f = [](auto x1, auto x2) { return tl::pow(x1 - x2, 2) + tl::cos(x1 + x2); };
  const auto walkthrough = tl::trace(f, 1.0, 2.0);
  std::cout << walkthrough;

  // Four samples of two features and an intercept; p = sigmoid(X beta) is shared with tl::let, so it
  // is computed once and its adjoint is the sum over its two uses.
  const tl::matrix<double, 4, 3> X{{0.5, -1.0, 1.0}, {1.5, 0.5, 1.0}, {-0.5, 2.0, 1.0}, {-1.5, -0.5, 1.0}};
  const tl::vector<double, 4> y{1.0, 1.0, 0.0, 0.0};
  const auto loss = [&X, &y](const auto& beta) {
    return tl::let(tl::sigmoid(tl::matmul(tl::cref(X), beta)), [&y](auto p) {
      return -tl::mean(tl::cref(y) * tl::log(p) + (1.0 - tl::cref(y)) * tl::log(1.0 - p));
    });
  };
  const tl::vector<double, 3> beta{0.5, -0.25, 0.1};
  const auto regression = tl::trace(loss, beta);
  std::cout << "\nlogistic regression, mean cross-entropy of sigmoid(X beta) against y:\n" << regression;

  if (argc > 1) {
    const std::string dir = argv[1];
    if (!write(dir + "/walkthrough.dot", tl::to_dot(f, 1.0, 2.0)) ||
        !write(dir + "/logistic_regression.dot", tl::to_dot(loss, beta))) {
      std::cerr << "cannot write the DOT files into " << dir << "\n";
      return 1;
    }
  }
  // The example is also a test: the traces' gradients are tl::grad's, exactly.
  return walkthrough.gradient() == tl::grad(f)(1.0, 2.0) && regression.gradient() == tl::grad(loss)(beta) ? 0 : 1;
}
