// SPDX-License-Identifier: BSL-1.0
// tapeless/inspect/repeats.hpp: the values a recorded graph computes more than once, as tl::trace
// (inspect/trace.hpp) and tl::to_dot (inspect/dot.hpp) mark them.
//
// A local that f uses twice without tl::let (`auto d = x - y; return d * d;`) is two copies of its
// subtree in the expression, each computed and swept. The recording (inspect/recorder.hpp) marks a node
// that computes the same as an earlier one, the same operation with the same data on the same inputs,
// with that earlier node (node::same_as); here those marks become a note per node and a summary.
#pragma once

#include <tapeless/inspect/graph.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace tapeless::inspect::detail {

/// The nodes of a graph that compute a value again.
struct repeats {
  std::vector<std::size_t> times{};  ///< per node: how often the value it computes first is computed
  std::vector<bool> outermost{};     ///< per node: a repeat that no repeat reads, the top of a repeated subtree
  std::size_t values = 0;            ///< the values computed more than once
  std::size_t nodes = 0;             ///< the nodes that compute a value again
};

template <class = void>
repeats find_repeats(const graph& g) {
  repeats r{std::vector<std::size_t>(g.nodes.size(), 1), std::vector<bool>(g.nodes.size(), false)};
  for (const node& n : g.nodes) {
    if (n.same_as) {
      r.values += ++r.times[*n.same_as] == 2 ? 1 : 0;
      ++r.nodes;
    } else {
      for (std::size_t input : n.inputs) r.outermost[input] = true;  // read by a node that is no repeat
    }
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    r.outermost[i] = g.nodes[i].same_as && (r.outermost[i] || i == g.output);
  return r;
}

/// "twice", "3 times".
template <class = void>
std::string times_text(std::size_t times) {
  return times == 2 ? "twice" : std::to_string(times) + " times";
}

/// Node i's mark: `same as t1` inside a repeated subtree; at its top, how often its value is computed,
/// and, with `advice`, the remedy. Empty for a node that computes its value first.
template <class = void>
std::string repeat_note(const graph& g, const repeats& r, std::size_t i, bool advice) {
  const node& n = g.at(i);
  if (!n.same_as) return {};
  std::string note = "same as " + g.at(*n.same_as).name;
  if (!r.outermost[i]) return note;
  note += ", computed " + times_text(r.times[*n.same_as]);
  return advice ? note + ": bind it with tl::let to compute it once" : note;
}

/// One line: how many values are computed more than once, by how many nodes, the first few of them at
/// the top of a repeated subtree with how often each is computed, and the remedy. Empty where every
/// value is computed once.
template <class = void>
std::string repeat_summary(const graph& g, const repeats& r) {
  if (r.nodes == 0) return {};
  std::vector<bool> listed(g.nodes.size(), false);
  std::string tops;
  std::size_t count = 0;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (!r.outermost[i] || listed[*g.at(i).same_as]) continue;
    const std::size_t first = *g.at(i).same_as;
    listed[first] = true;
    if (++count > 4) {
      tops += ", ...";
      break;
    }
    tops += (tops.empty() ? "" : ", ") + g.at(first).name + " " + times_text(r.times[first]);
  }
  return "computed more than once: " + std::to_string(r.values) + (r.values == 1 ? " value" : " values") + ", in " +
         std::to_string(r.nodes) + (r.nodes == 1 ? " extra node (" : " extra nodes (") + tops +
         "): bind each with tl::let to compute it once";
}

}  // namespace tapeless::inspect::detail
