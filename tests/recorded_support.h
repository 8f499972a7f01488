// What the recorded-corpus tests of the API surfaces share
// (recorded_responses_test.cpp, recorded_messages_test.cpp): a corpus folder
// of fixtures/recorded/ loaded, its streams, the split-invariance check, the
// re-import of the kept source cassettes and the byte-for-byte replay.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/test_paths.h"
#include "mockllm/import.h"
#include "mockllm/server.h"
#include "mockllm/trace_files.h"
#include "protocols/wire/surface.h"

namespace llmconform::recorded {

namespace fs = std::filesystem;
using wire::Json;

inline const fs::path& Root() {
  static const fs::path root = ::llmconform::test_paths::SourceRoot();
  return root;
}

inline std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every trace of `dir`, each failing the test when it does not load.
inline std::vector<mockllm::Trace> Corpus(const fs::path& dir) {
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

// A streamed response's chunks joined: the bytes a client read.
inline std::string Joined(const mockllm::Exchange& x) {
  std::string body;
  for (const auto& c : x.response.chunks) body += c.raw;
  return body;
}

struct Stream {
  std::string where;  // "TRACE-ID exchange N"
  std::string body;
};

inline std::vector<Stream> Streams(const fs::path& dir) {
  std::vector<Stream> out;
  for (const auto& t : Corpus(dir)) {
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
  wire::SseParser parser;
  auto acc = wire::MakeAccumulator(surface);
  auto add = [&acc](const wire::SseEventView& ev) { acc->AddEvent(ev); };
  std::size_t pos = 0;
  for (std::size_t n : sizes) {
    if (pos >= body.size()) break;
    parser.Feed(body.substr(pos, n), add);
    pos += n;
  }
  if (pos < body.size()) parser.Feed(body.substr(pos), add);
  parser.Finish();
  acc->NoteComments(parser.comment_count());
  return acc->Finish();
}

// Each source cassette under `sources` imports (default options) to its
// committed trace in `corpus`, byte for byte. Returns how many were read.
inline std::size_t ExpectReimports(const fs::path& sources, const fs::path& corpus) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(sources)) {
    if (e.path().extension() != ".yaml") continue;
    ++n;
    const std::string name = e.path().filename().string();
    auto r = mockllm::ParseRecording(Slurp(e.path()), name);
    EXPECT_TRUE(r) << r.error().message;
    if (!r) continue;
    const fs::path committed = corpus / (mockllm::TraceStem(name) + ".trace.jsonl");
    EXPECT_EQ(mockllm::WriteTrace(r->trace), Slurp(committed)) << committed;
  }
  return n;
}

// mockllm replays every exchange of `traces`, pinned, byte for byte: a stream
// as its chunks joined, a body as recorded, with the recorded status.
// Returns how many were replayed.
inline std::size_t ExpectReplaysByteForByte(const std::vector<mockllm::Trace>& traces) {
  auto server = mockllm::Server::Start(traces, {});
  EXPECT_TRUE(server) << server.error().message;
  if (!server) return 0;
  httplib::Client client("127.0.0.1", (*server)->port());
  client.set_read_timeout(30, 0);
  std::size_t replayed = 0;
  for (const auto& t : traces) {
    const httplib::Headers session{{"X-Mockllm-Session", "replay-" + t.id}};
    for (const auto& x : t.exchanges) {
      const std::string path = "/t/" + mockllm::UrlEncode(t.id) + x.request.path;
      const std::string body = x.request.body ? Json(*x.request.body).dump() : "";
      auto r = client.Post(path, session, body, "application/json");
      EXPECT_TRUE(r) << t.id;
      if (!r) continue;
      EXPECT_EQ(r->status, x.response.status) << t.id << " " << r->body.substr(0, 300);
      if (x.response.streamed) {
        EXPECT_EQ(r->body, Joined(x)) << t.id;
      } else {
        EXPECT_EQ(Json::parse(r->body, nullptr, false), Json(*x.response.body)) << t.id;
      }
      ++replayed;
    }
  }
  (*server)->Stop();
  return replayed;
}

}  // namespace llmconform::recorded
