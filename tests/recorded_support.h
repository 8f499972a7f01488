// What the tests of one recorded corpus folder (fixtures/recorded/<folder>/)
// share: reading a file whole, loading every trace of the folder, a streamed
// exchange's body (its chunks joined), every stream of the folder named by
// its trace and exchange, and the three checks every corpus passes (lint is
// clean, the kept source cassettes import to the committed traces, mockllm
// replays every exchange byte for byte).
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/test_paths.h"
#include "mockllm/import.h"
#include "mockllm/lint.h"
#include "mockllm/server.h"
#include "mockllm/trace.h"
#include "mockllm/trace_files.h"
#include "protocols/wire/surface.h"

namespace llmconform::recorded {

inline const std::filesystem::path& Root() {
  static const std::filesystem::path root = ::llmconform::test_paths::SourceRoot();
  return root;
}

inline std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every trace of `dir`; a trace that does not load is a test failure.
inline std::vector<mockllm::Trace> TracesIn(const std::filesystem::path& dir) {
  std::vector<mockllm::Trace> out;
  auto files = mockllm::TraceFiles({dir.string()});
  EXPECT_TRUE(files) << files.error().message;
  if (!files) return out;
  for (const auto& f : *files) {
    auto t = mockllm::LoadTraceFile(f);
    EXPECT_TRUE(t) << t.error().message;
    if (t) out.push_back(std::move(*t));
  }
  return out;
}

inline std::string Joined(const mockllm::Exchange& x) {
  std::string body;
  for (const auto& c : x.response.chunks) body += c.raw;
  return body;
}

struct Stream {
  std::string where;  // "<trace id> exchange N"
  std::string body;
};

inline std::vector<Stream> StreamsIn(const std::filesystem::path& dir) {
  std::vector<Stream> out;
  for (const auto& t : TracesIn(dir)) {
    for (std::size_t i = 0; i < t.exchanges.size(); ++i) {
      if (t.exchanges[i].response.streamed)
        out.push_back({t.id + " exchange " + std::to_string(i + 1), Joined(t.exchanges[i])});
    }
  }
  return out;
}

// `body` read by `surface`'s accumulator in reads of the given sizes (the
// last one takes what is left).
inline wire::CanonicalResult AccumulateInReads(wire::Surface surface, std::string_view body,
                                               const std::vector<std::size_t>& sizes) {
  std::vector<std::size_t> cuts;
  std::size_t at = 0;
  for (std::size_t n : sizes) {
    if (n == 0 || at + n >= body.size()) break;
    cuts.push_back(at += n);
  }
  return wire::AccumulateSurfaceStreamSplit(surface, body, cuts);
}

// Lint passes every trace of `dir` (contract breaks of recorded traffic are
// warnings).
inline void ExpectLintClean(const std::filesystem::path& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.path().string().ends_with(".trace.jsonl")) continue;
    const auto report = mockllm::LintTraceReport(Slurp(e.path()), e.path().string());
    EXPECT_TRUE(report.problems.empty()) << report.problems[0];
  }
}

// Each source cassette in `sources` imports (default options) to its
// committed trace in `dir`, byte for byte; there are at least 3.
inline void ExpectImportMakesTheTraces(const std::filesystem::path& sources,
                                       const std::filesystem::path& dir) {
  std::size_t count = 0;
  for (const auto& e : std::filesystem::directory_iterator(sources)) {
    if (e.path().extension() != ".yaml") continue;
    ++count;
    const std::string name = e.path().filename().string();
    auto r = mockllm::ParseRecording(Slurp(e.path()), name);
    ASSERT_TRUE(r) << r.error().message;
    const auto committed = dir / (mockllm::TraceStem(name) + ".trace.jsonl");
    EXPECT_EQ(mockllm::WriteTrace(r->trace), Slurp(committed)) << committed;
  }
  EXPECT_GE(count, 3u);
}

// mockllm replays every exchange of `traces`, pinned, byte for byte: a stream
// as its chunks joined (its path followed by `stream_query`), a body as
// recorded, with the recorded status; at least 20 exchanges.
inline void ExpectReplaysByteForByte(const std::vector<mockllm::Trace>& traces,
                                     const std::string& stream_query = "") {
  auto server = mockllm::Server::Start(traces, {});
  ASSERT_TRUE(server) << server.error().message;
  httplib::Client client("127.0.0.1", (*server)->port());
  client.set_read_timeout(30, 0);
  std::size_t replayed = 0;
  for (const auto& t : traces) {
    const httplib::Headers session{{"X-Mockllm-Session", "replay-" + t.id}};
    for (const auto& x : t.exchanges) {
      std::string path = "/t/" + mockllm::UrlEncode(t.id) + x.request.path;
      if (x.response.streamed) path += stream_query;
      const std::string body = x.request.body ? Json(*x.request.body).dump() : "";
      auto r = client.Post(path, session, body, "application/json");
      ASSERT_TRUE(r) << t.id;
      EXPECT_EQ(r->status, x.response.status) << t.id << " " << r->body.substr(0, 300);
      if (x.response.streamed) {
        EXPECT_EQ(r->body, Joined(x)) << t.id;
      } else {
        EXPECT_EQ(Json::parse(r->body, nullptr, false), Json(*x.response.body)) << t.id;
      }
      ++replayed;
    }
  }
  EXPECT_GE(replayed, 20u);
  (*server)->Stop();
}

}  // namespace llmconform::recorded
