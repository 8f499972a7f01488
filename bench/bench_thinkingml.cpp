// ThinkingML validation throughput against a pugixml parse of the same
// replies made well-formed (Markdown text escaped, each reply wrapped in one
// root element), in the same run: the hand-written validator should be no
// slower than pugixml only parsing. Both work reply by reply over 1 MiB, and
// both are counted in reply bytes per second.
#include <benchmark/benchmark.h>

#include <pugixml.hpp>
#include <string>
#include <vector>

#include "base/format.h"
#include "bench/ratio_main.h"
#include "protocols/thinkingml/thinkingml.h"

namespace {

using llmconform::Format;

constexpr std::size_t kCorpusBytes = 1 << 20;

// The i-th reply of the corpus: two to four phases, Chinese and English
// text, Markdown with a code fence, `a < b`, `R&D`, and the queries block.
std::string MakeReply(std::size_t i) {
  std::string r;
  if (i % 3 == 0) r += "<think>先理解用户的训练目标，再给出可执行的计划。</think>\n";
  if (i % 4 == 0) r += "<serp>三分化 训练 计划 频率</serp>\n";
  r += "<thinking>\n";
  const std::size_t phases = 2 + i % 3;
  for (std::size_t p = 1; p <= phases; ++p) {
    r += Format("  <phase id=\"{}\">\n    <title>阶段 {}：分析需求</title>\n", p, p);
    for (std::size_t k = 0; k < 3 + (i + p) % 4; ++k) {
      r += "    用户每周可以训练四次，目标是增肌；需要平衡推、拉、腿三类动作的训练量 (volume) "
           "与恢复。\n";
    }
    r += "  </phase>\n";
  }
  r += "</thinking>\n<final>\n# 三分化训练方案\n\n";
  for (std::size_t k = 0; k < 4 + i % 5; ++k) {
    r +=
        Format("- 第 {} 天：卧推 4x8，若 RPE < 8 则加重 2.5kg；R&D 团队建议 x<3 组力竭。\n", k + 1);
  }
  r += "\n```python\nif volume < target and rest >= 48:\n    plan.add(day)\n```\n";
  r += "<!-- "
       "<serp_queries>\n[\"三分化训练计划怎么安排\",\"三分化训练动作选择\","
       "\"三分化训练频率与恢复\"]\n"
       "</serp_queries> -->\n</final>\n";
  return r;
}

std::vector<std::string> Corpus() {
  std::vector<std::string> replies;
  std::size_t total = 0;
  for (std::size_t i = 0; total < kCorpusBytes; ++i) {
    replies.push_back(MakeReply(i));
    total += replies.back().size();
  }
  return replies;
}

// The same reply as well-formed XML: text escaped the way XML needs it (the
// comment left as it is), inside a root element.
std::string AsXml(const std::string& reply) {
  std::string out = "<reply>";
  const std::size_t final_open = reply.find("<final>") + 7;
  const std::size_t comment = reply.find("<!--");
  for (std::size_t i = 0; i < reply.size(); ++i) {
    const char c = reply[i];
    const bool markdown = i >= final_open && i < comment;
    if (markdown && c == '<') {
      out += "&lt;";
    } else if (c == '&') {
      out += "&amp;";
    } else {
      out += c;
    }
  }
  return out + "</reply>";
}

std::size_t Bytes(const std::vector<std::string>& v) {
  std::size_t n = 0;
  for (const auto& s : v) n += s.size();
  return n;
}

void BM_ThinkingmlValidate(benchmark::State& state) {
  const auto replies = Corpus();
  for (const auto& r : replies) {
    if (!llmconform::thinkingml::Validate(r).valid)
      state.SkipWithError("corpus reply is not valid ThinkingML");
  }
  for (auto _ : state) {
    for (const auto& r : replies) benchmark::DoNotOptimize(llmconform::thinkingml::Validate(r));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * Bytes(replies)));
}
BENCHMARK(BM_ThinkingmlValidate)->Unit(benchmark::kMillisecond);

// The verdict alone (findings, no parts).
void BM_ThinkingmlCheckReply(benchmark::State& state) {
  const auto replies = Corpus();
  for (auto _ : state) {
    for (const auto& r : replies) benchmark::DoNotOptimize(llmconform::thinkingml::CheckReply(r));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * Bytes(replies)));
}
BENCHMARK(BM_ThinkingmlCheckReply)->Unit(benchmark::kMillisecond);

// Counted in the bytes of the replies it stands for, like the validator: the
// escapes and the root element make the XML ~4% longer, and crediting pugixml
// with those bytes would compare unequal amounts of work.
void BM_PugixmlParseEquivalentXml(benchmark::State& state) {
  const auto replies = Corpus();
  std::vector<std::string> xml;
  for (const auto& r : replies) xml.push_back(AsXml(r));
  for (const auto& x : xml) {
    pugi::xml_document doc;
    if (!doc.load_buffer(x.data(), x.size()))
      state.SkipWithError("corpus reply is not well-formed XML");
  }
  for (auto _ : state) {
    for (const auto& x : xml) {
      pugi::xml_document doc;
      benchmark::DoNotOptimize(doc.load_buffer(x.data(), x.size()));
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * Bytes(replies)));
}
BENCHMARK(BM_PugixmlParseEquivalentXml)->Unit(benchmark::kMillisecond);

}  // namespace

// The verdict, and the verdict with the parts, each no slower than pugixml
// parsing the equivalent XML.
LLMCONFORM_BENCH_MAIN(
    {{"BM_ThinkingmlCheckReply", "BM_PugixmlParseEquivalentXml", "bytes_per_second", 1.0},
     {"BM_ThinkingmlValidate", "BM_PugixmlParseEquivalentXml", "bytes_per_second", 1.0}})
