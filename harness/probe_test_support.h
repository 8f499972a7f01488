// Helpers of the probe's unit tests (probe_test.cpp, probe_surfaces_test.cpp).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/probe.h"

namespace llmconform::harness::probe_test {

// A whole reply that arrived in one piece.
inline ProbeReply Reply(int status, std::string content_type, std::string body) {
  ProbeReply r;
  r.status = status;
  if (!content_type.empty()) r.headers.emplace_back("content-type", std::move(content_type));
  r.pieces.push_back(mockllm::Chunk{0, std::move(body)});
  return r;
}

// The item of `battery` called `name`; throws when there is none.
inline const ProbeItem& Item(const std::vector<ProbeItem>& battery, std::string_view name) {
  for (const auto& i : battery)
    if (i.name == name) return i;
  throw std::runtime_error("no battery item " + std::string(name));
}

}  // namespace llmconform::harness::probe_test
