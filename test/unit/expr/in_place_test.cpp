// SPDX-License-Identifier: BSL-1.0
// Data used inside f: a matrix captured by value, by reference or reached through `this` is read where
// it lies (its leaf points at it); a local of f or a temporary is copied once into the room grad keeps
// for the call, and every form gives the same gradient. Where each leaf points is what proves it: recorded inside f,
// from the node f builds. The sanitizer build runs these too, where a leaf that read a local of f in place would be
// caught.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <memory>
#include <tuple>

namespace tl = tapeless;

namespace {

using vec = tl::vector<double, 8>;

vec data() {
  vec y;
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = std::sin(1.3 * static_cast<double>(i));
  return y;
}

/// d/dmu and d/dsigma of sum(-0.5 ((y - mu) / sigma)^2) - n log sigma, by hand.
std::tuple<double, double> expected(const vec& y, double mu, double sigma) {
  double sz = 0, szz = 0;
  for (double v : y) {
    const double z = (v - mu) / sigma;
    sz += z;
    szz += z * z;
  }
  return {sz / sigma, (szz - static_cast<double>(y.size())) / sigma};
}

/// The log-density of the data y at (mu, sigma), with y whatever f makes of it.
template <class Y, class Mu, class Sigma>
auto log_density(const Y& y, const Mu& mu, const Sigma& sigma) {
  return tl::sum(-0.5 * tl::square((y - mu) / sigma)) - static_cast<double>(vec::size()) * tl::log(sigma);
}

/// Where the constant leaf of y - mu reads y, and whether it holds its own copy.
struct seen {
  const vec* reads = nullptr;
  bool owns = false;
};
template <class Y, class Mu>
void record(seen& s, const Y& y, const Mu& mu) {
  const auto e = y - mu;
  s.reads = &e.lhs.value();
  s.owns = e.lhs.owns();
}

/// Captured data y is read in place.
void check_captured(const seen& s, const vec& y) {
  CHECK_FALSE(s.owns);
  CHECK(s.reads == &y);
}

void check_gradient(const std::tuple<double, double>& g, const vec& y) {
  const auto [e_mu, e_sigma] = expected(y, 0.3, 1.7);
  CHECK(std::get<0>(g) == doctest::Approx(e_mu).epsilon(1e-14));
  CHECK(std::get<1>(g) == doctest::Approx(e_sigma).epsilon(1e-14));
}

}  // namespace

TEST_CASE("data captured by value is read in place") {
  const vec y = data();
  seen s;
  const vec* captured = nullptr;
  auto f = [y, &s, &captured](const auto& mu, const auto& sigma) {
    record(s, y, mu);
    captured = &y;  // the closure's own copy, which the leaf reads instead of a copy of its own
    return log_density(y, mu, sigma);
  };
  check_gradient(tl::grad(f)(0.3, 1.7), y);
  check_captured(s, *captured);
}

TEST_CASE("data captured by reference, on the heap or static, is read in place") {
  // Off the stack from the transform's frame down, data outlives f.
  const auto check_read = [](const vec& y) {
    seen s;
    auto f = [&y, &s](const auto& mu, const auto& sigma) {
      record(s, y, mu);
      return log_density(y, mu, sigma);
    };
    check_gradient(tl::grad(f)(0.3, 1.7), y);
    CHECK(s.reads == &y);
    CHECK_FALSE(s.owns);
  };
  const auto on_heap = std::make_unique<vec>(data());
  static const vec stored = data();
  check_read(*on_heap);
  check_read(stored);
}

namespace {
/// A model whose data is a member, read by f through `this`, as a class's method writes it.
struct model {
  vec y = data();
  seen s;
  std::tuple<double, double> gradient(double mu, double sigma) {
    return tl::grad([this](const auto& m, const auto& sd) {
      record(s, y, m);
      return log_density(y, m, sd);
    })(mu, sigma);
  }
};
}  // namespace

TEST_CASE("data of an object f reaches through `this` is read in place") {
  const auto m = std::make_unique<model>();
  check_gradient(m->gradient(0.3, 1.7), m->y);
  CHECK(m->s.reads == &m->y);
  CHECK_FALSE(m->s.owns);
}

TEST_CASE("a local of an outer transform's f, used in an inner transform's f, is copied") {
  // The inner transform's frame lies inside the outer f's: only the outermost frame bounds the data
  // known to outlive the call.
  const vec y = data();
  seen s;
  const vec* local_seen = nullptr;
  auto outer = [&](const auto& mu, const auto& sigma) {
    const vec local = y;
    local_seen = &local;
    const auto inner = tl::grad([&](const auto& m) {
      record(s, local, m);
      return log_density(local, m, 1.7);
    })(0.3);
    CHECK(inner == doctest::Approx(std::get<0>(expected(y, 0.3, 1.7))).epsilon(1e-14));
    return log_density(y, mu, sigma);
  };
  check_gradient(tl::grad(outer)(0.3, 1.7), y);
  CHECK(s.reads != local_seen);
}

TEST_CASE("data used twice is read in place by both uses") {
  const vec y = data();
  auto f = [y](const auto& mu, const auto& sigma) {
    const auto a = y - mu;
    const auto b = y * sigma;
    CHECK(&a.lhs.value() == &y);
    CHECK(&b.lhs.value() == &y);
    return tl::sum(-0.5 * tl::square(a / sigma)) - static_cast<double>(vec::size()) * tl::log(sigma) + 0.0 * tl::sum(b);
  };
  check_gradient(tl::grad(f)(0.3, 1.7), y);
}

TEST_CASE("a local copy of captured data, and local data built in f, are copied once, into the room") {
  // Each dies when f returns: the leaf copies it into the room the transform keeps until its sweep is
  // done, and reads it there (it does not hold the copy itself).
  const vec y = data();
  seen s;
  auto copy = [y, &s](const auto& mu, const auto& sigma) {
    const vec local = y;
    record(s, local, mu);
    CHECK(s.reads != &local);
    return log_density(local, mu, sigma);
  };
  check_gradient(tl::grad(copy)(0.3, 1.7), y);
  CHECK_FALSE(s.owns);
  auto built = [&s](const auto& mu, const auto& sigma) {
    vec local = data();
    record(s, local, mu);
    CHECK(s.reads != &local);
    return log_density(local, mu, sigma);
  };
  check_gradient(tl::grad(built)(0.3, 1.7), y);
  CHECK_FALSE(s.owns);
}

TEST_CASE("a local's one copy is read through a pointer at every level above its leaf") {
  const vec y = data();
  seen s;
  auto f = [y, &s](const auto& mu, const auto& sigma) {
    const vec local = y;
    auto e = -0.5 * tl::square((local - mu) / sigma);  // the leaf, copied up three levels
    const auto& leaf = e.rhs.arg.lhs.lhs;
    s = {&leaf.value(), leaf.owns()};
    CHECK(s.reads != &local);
    return tl::sum(e) - static_cast<double>(vec::size()) * tl::log(sigma);
  };
  check_gradient(tl::grad(f)(0.3, 1.7), y);
  CHECK_FALSE(s.owns);  // in the room: each level copied a pointer
}

TEST_CASE("a temporary in f, used twice, is copied once per use") {
  const vec y = data();
  std::size_t in_room = 0;
  auto f = [y, &in_room](const auto& mu, const auto& sigma) {
    const auto a = (y + 0.0) - mu;  // y + 0.0 is a plain matrix, a temporary
    const auto b = 0.0 * ((y + 0.0) * sigma);
    in_room = (a.lhs.owns() ? 0 : 1) + (b.rhs.lhs.owns() ? 0 : 1);
    return tl::sum(-0.5 * tl::square(a / sigma)) - static_cast<double>(vec::size()) * tl::log(sigma) + tl::sum(b);
  };
  check_gradient(tl::grad(f)(0.3, 1.7), y);
  CHECK(in_room == 2);
}

TEST_CASE("outside a transform, and in a constant expression, a matrix constant holds its own copy") {
  const vec y = data();
  const tl::argument<0, double> mu(0.3);
  const auto e = y - mu;
  CHECK(e.lhs.owns());
  CHECK(e.lhs.value() == y);
  const auto copied = e;  // a copy points at its own copy
  CHECK(&copied.lhs.value() != &e.lhs.value());
  CHECK(copied.lhs.value() == y);
  constexpr auto weighted = [](const auto& x) {
    const tl::vector<double, 2> w{2.0, 3.0};  // a local: copied, as every constant in a constant expression
    return tl::sum(w * x);
  };
  constexpr auto cg = tl::grad(weighted)(tl::vector<double, 2>{1.0, 1.0});
  static_assert(cg[0] == 2.0 && cg[1] == 3.0);
}

TEST_CASE("a leaf read in place costs a pointer in every node above it") {
  // The node types are the same for data read in place and copied: only what each level copies differs.
  using leaf = tl::constant<vec>;
  static_assert(sizeof(leaf) >= sizeof(vec) + sizeof(const vec*));
  const vec y = data();
  seen s;
  const vec* captured = nullptr;
  auto f = [y, &s, &captured](const auto& mu, const auto& sigma) {
    auto e = -0.5 * tl::square((y - mu) / sigma);  // the leaf, copied up three levels
    const auto& leaf = e.rhs.arg.lhs.lhs;
    s = {&leaf.value(), leaf.owns()};
    captured = &y;
    return tl::sum(e) - static_cast<double>(vec::size()) * tl::log(sigma);
  };
  check_gradient(tl::grad(f)(0.3, 1.7), y);
  check_captured(s, *captured);
}

TEST_CASE("a member of a struct captured by value is read in place: it lies in the closure") {
  struct inputs {
    double scale;
    vec y;
  };
  const inputs in{1.0, data()};
  seen s;
  const vec* captured = nullptr;
  auto whole = [in, &s, &captured](const auto& mu, const auto& sigma) {
    record(s, in.y, mu);
    captured = &in.y;
    return log_density(in.y, mu, sigma);
  };
  check_gradient(tl::grad(whole)(0.3, 1.7), in.y);
  check_captured(s, *captured);
}

TEST_CASE("a matrix argument not differentiated is the caller's own, read in place") {
  const auto y = std::make_unique<vec>(data());
  bool in_place = false;
  auto f = [&in_place](const auto& mu, const auto& sigma, const auto& yy) {
    const auto e = yy - mu;
    in_place = &e.lhs.value() == &yy;
    return log_density(yy, mu, sigma);
  };
  const auto g = tl::grad<0, 1>(f)(0.3, 1.7, *y);
  check_gradient(g, *y);
  CHECK(in_place);
}

namespace {
constexpr tl::vector<double, tl::bounded<4>> bounded_data{1.0, 2.0, 3.0};
/// A sum over data of run-time extents, read through tl::cref: its extents and elements at run time.
template <const auto& Data>
constexpr auto weighted = [](const auto& w) {
  return tl::sum_over(
      tl::indices(tl::cref(Data).size()),
      [](std::size_t i, const auto& w) { return w * tl::cref(Data)[i] * tl::cref(Data)[i]; }, w);
};
// In a constant expression: 2 w (1 + 4 + 9) / 2 at any w, read where the data lies.
static_assert(tl::grad(weighted<bounded_data>)(2.0) == 14.0);
}  // namespace

TEST_CASE("tl::cref of a tl::matrix of run-time extents reads it in place: a leaf pointing at it") {
  static const tl::vector<double, tl::dynamic> dynamic_data{1.0, 2.0, 3.0};
  CHECK(tl::grad(weighted<dynamic_data>)(2.0) == 14.0);
  CHECK(tl::grad(weighted<bounded_data>)(2.0) == 14.0);
  const auto leaf = tl::cref(dynamic_data);
  CHECK(&leaf.value() == &dynamic_data);
  CHECK(leaf.rows() == 3);
  CHECK(leaf.cols() == 1);
  // An element of it is a constant of the element's value.
  const auto element = leaf[1];
  static_assert(!std::remove_cvref_t<decltype(element)>::is_active);
  CHECK(element.value() == 2.0);
}
