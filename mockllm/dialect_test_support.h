// Test helpers for the dialect tests over the recorded traces of fixtures/:
// a stream's bytes, the traces of a folder, what a surface's detector finds,
// and a dialect's rewrites checked against it (header-only; for tests).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "base/test_paths.h"
#include "mockllm/dialect_rewrite.h"
#include "mockllm/trace.h"
#include "mockllm/trace_files.h"
#include "protocols/wire/dialect.h"

namespace llmconform::mockllm {

// The recorded stream's bytes, its chunks joined.
inline std::string JoinedChunks(const RecordedResponse& r) {
  std::string out;
  for (const Chunk& c : r.chunks) out += c.raw;
  return out;
}

// Every trace under `dir` (relative to the source root); a file that does
// not load fails the calling test.
inline std::vector<Trace> LoadTraces(const std::string& dir) {
  std::vector<Trace> out;
  auto files =
      TraceFiles({(std::filesystem::path(::llmconform::test_paths::SourceRoot()) / dir).string()});
  EXPECT_TRUE(files.has_value()) << dir;
  if (!files) return out;
  for (const auto& f : *files) {
    auto t = LoadTraceFile(f);
    EXPECT_TRUE(t.has_value()) << f;
    if (t) out.push_back(std::move(*t));
  }
  return out;
}

// The ids the detector of `surface` finds in reply `r`.
inline std::set<std::string> DetectedIds(const RecordedResponse& r, wire::Surface surface) {
  std::set<std::string> ids;
  const auto found = r.streamed ? wire::DetectStreamDialect(surface, JoinedChunks(r))
                                : wire::DetectBodyDialect(surface, r.BodyBytes(), r.status);
  for (const auto& d : found) ids.insert(d.id);
  return ids;
}

// `d` over `exchanges` (replies of d's surface): each reply rewritten twice
// is the same, shows only ids of `d`'s steps, and together they show all of
// them; `also(exchange, rewritten)` checks more of each.
inline void ExpectExactlyItsDeviations(
    const Dialect& d, const std::vector<Exchange>& exchanges,
    const std::function<void(const Exchange&, const RecordedResponse&)>& also) {
  const auto ids = d.Ids();
  const std::set<std::string> want(ids.begin(), ids.end());
  std::set<std::string> seen;
  for (const Exchange& x : exchanges) {
    const bool streams = RequestStreams(x.request);
    const RecordedResponse r = RewriteResponse(x.response, d, streams, d.surface);
    EXPECT_EQ(r, RewriteResponse(x.response, d, streams, d.surface)) << d.name;
    for (const std::string& id : DetectedIds(r, d.surface)) {
      EXPECT_TRUE(want.contains(id)) << d.name << " shows " << id << " on " << x.request.path;
      seen.insert(id);
    }
    also(x, r);
  }
  EXPECT_EQ(seen, want) << d.name;
}

}  // namespace llmconform::mockllm
