// Property tests: generated valid ThinkingML replies are accepted with the
// parts they were built from; every single mutation from a catalogue is
// rejected with the rule it breaks; arbitrary bytes never crash the
// validator; generated GymBro event sequences are judged as a simple model
// judges them.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>

#include "base/format.h"
#include "protocols/thinkingml/gymbro_events.h"
#include "protocols/thinkingml/line_index.h"
#include "protocols/thinkingml/serp_queries.h"
#include "protocols/thinkingml/thinkingml.h"

namespace llmconform::thinkingml {
namespace {

// ---------------------------------------------------------------------------
// A generated reply, kept as its blocks so that mutations can work on them.

enum class Block { kThink, kSerp, kThinking, kFinal };

struct GeneratedPhase {
  std::string title;
  std::string text;
};

struct Reply {
  std::optional<std::string> think;
  std::optional<std::string> serp;
  std::vector<GeneratedPhase> phases;
  std::string final_text;
  std::vector<std::string> queries;
  std::string gap;  // whitespace between and around blocks
};

// Text that is no markup in any order of its pieces: '<' only before a space
// or a digit, entities and ampersands, CJK and emoji.
rc::Gen<std::string> PlainText() {
  return rc::gen::map(rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
                          "训练", "a", " ", "\n", "a < b", "x<3", "R&D", "&lt;final&gt;",
                          "**粗体**", "😀", "。", "- 列表", "1.", "?")),
                      [](const std::vector<std::string>& pieces) {
                        std::string s;
                        for (const auto& p : pieces) s += p;
                        return s;
                      });
}

// Markdown for <final>: plain text plus code fences and an ordinary comment.
rc::Gen<std::string> FinalText() {
  return rc::gen::map(rc::gen::container<std::vector<std::string>>(rc::gen::oneOf(
                          PlainText(), rc::gen::element<std::string>(
                                           "\n```cpp\nif (a < b && c) {}\n```\n", "<!-- 注释 -->",
                                           "# 标题\n", "[链接](https://example.com?a=1&b=2)"))),
                      [](const std::vector<std::string>& pieces) {
                        std::string s;
                        for (const auto& p : pieces) s += p;
                        return s;
                      });
}

rc::Gen<std::vector<std::string>> Queries() {
  return rc::gen::map(
      rc::gen::container<std::set<std::string>>(rc::gen::element<std::string>(
          "三分化训练计划怎么安排", "三分化训练动作选择", "深蹲 技巧", "how to bench press",
          "2024 训练 计划", "R&D \"quoted\"", "std::vector 用法")),
      [](const std::set<std::string>& s) {
        std::vector<std::string> v(s.begin(), s.end());
        if (v.size() > kMaxSerpQueries) v.resize(kMaxSerpQueries);
        return v;
      });
}

rc::Gen<std::optional<std::string>> Optional(rc::Gen<std::string> gen) {
  return rc::gen::map(rc::gen::pair(rc::gen::arbitrary<bool>(), std::move(gen)),
                      [](const std::pair<bool, std::string>& p) {
                        return p.first ? std::optional<std::string>(p.second) : std::nullopt;
                      });
}

rc::Gen<Reply> GenReply() {
  return rc::gen::build<Reply>(
      rc::gen::set(&Reply::think, Optional(PlainText())),
      rc::gen::set(&Reply::serp, Optional(PlainText())),
      rc::gen::set(
          &Reply::phases,
          rc::gen::resize(5, rc::gen::nonEmpty(rc::gen::container<std::vector<GeneratedPhase>>(
                                 rc::gen::build<GeneratedPhase>(
                                     rc::gen::set(&GeneratedPhase::title, PlainText()),
                                     rc::gen::set(&GeneratedPhase::text, PlainText())))))),
      rc::gen::set(&Reply::final_text, FinalText()), rc::gen::set(&Reply::queries, Queries()),
      rc::gen::set(&Reply::gap, rc::gen::element<std::string>("", "\n", "\n\n", " \n\t")));
}

std::string RenderBlock(const Reply& r, Block b) {
  switch (b) {
    case Block::kThink:
      return "<think>" + *r.think + "</think>";
    case Block::kSerp:
      return "<serp>" + *r.serp + "</serp>";
    case Block::kThinking: {
      std::string s = "<thinking>\n";
      for (std::size_t i = 0; i < r.phases.size(); ++i) {
        s += Format("  <phase id=\"{}\">\n    <title>{}</title>\n    {}\n  </phase>\n", i + 1,
                    r.phases[i].title, r.phases[i].text);
      }
      return s + "</thinking>";
    }
    case Block::kFinal:
      return "<final>\n" + r.final_text + "\n" + FormatSerpQueriesBlock(r.queries) + "\n</final>";
  }
  return "";
}

std::vector<Block> Blocks(const Reply& r) {
  std::vector<Block> out;
  if (r.think) out.push_back(Block::kThink);
  if (r.serp) out.push_back(Block::kSerp);
  out.push_back(Block::kThinking);
  out.push_back(Block::kFinal);
  return out;
}

std::string Render(const Reply& r, const std::vector<Block>& blocks) {
  std::string s = r.gap;
  for (Block b : blocks) s += RenderBlock(r, b) + r.gap;
  return s;
}

std::string Render(const Reply& r) { return Render(r, Blocks(r)); }

std::string Trimmed(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1));
}

std::set<std::string> RuleSet(const Validation& v) {
  std::set<std::string> out;
  for (const auto& f : v.findings) out.insert(f.rule);
  return out;
}

std::string Describe(const Validation& v) {
  std::string s;
  for (const auto& f : v.findings)
    s += Format("{}@{}:{} {}\n", f.rule, f.position.line, f.position.column, f.message);
  return s;
}

RC_GTEST_PROP(ValidateProperties, GeneratedRepliesAreAcceptedWithTheirParts, ()) {
  const Reply r = *GenReply();
  const std::string text = Render(r);
  const Validation v = Validate(text);
  RC_ASSERT(v.valid);
  RC_ASSERT(v.findings.empty());
  RC_ASSERT(v.parts.think == (r.think ? std::optional(Trimmed(*r.think)) : std::nullopt));
  RC_ASSERT(v.parts.serp == (r.serp ? std::optional(Trimmed(*r.serp)) : std::nullopt));
  RC_ASSERT(v.parts.phases.size() == r.phases.size());
  for (std::size_t i = 0; i < r.phases.size(); ++i) {
    RC_ASSERT(v.parts.phases[i].id == static_cast<std::int64_t>(i + 1));
    RC_ASSERT(v.parts.phases[i].title == Trimmed(r.phases[i].title));
    RC_ASSERT(v.parts.phases[i].text == Trimmed(r.phases[i].text));
  }
  RC_ASSERT(v.parts.final_content == Trimmed(r.final_text));
  RC_ASSERT(v.parts.queries == r.queries);
}

// ---------------------------------------------------------------------------
// The mutation catalogue: each mutation of a valid reply and the rule it breaks.

struct Mutation {
  std::string name;
  std::string rule;
  std::function<std::optional<std::string>(const Reply&)>
      apply;  // nullopt: does not apply to this reply
};

std::optional<std::string> ReplaceFirst(std::string s, std::string_view from, std::string_view to) {
  const auto at = s.find(from);
  if (at == std::string::npos) return std::nullopt;
  s.replace(at, from.size(), to);
  return s;
}

std::vector<Block> Without(std::vector<Block> blocks, Block b) {
  blocks.erase(std::find(blocks.begin(), blocks.end(), b));
  return blocks;
}

std::vector<Block> Duplicated(std::vector<Block> blocks, Block b) {
  blocks.insert(std::find(blocks.begin(), blocks.end(), b), b);
  return blocks;
}

std::vector<Mutation> Catalogue() {
  auto with_blocks = [](auto change) {
    return [change](const Reply& r) -> std::optional<std::string> {
      auto blocks = change(r, Blocks(r));
      if (!blocks) return std::nullopt;
      return Render(r, *blocks);
    };
  };
  auto with_reply = [](auto change) {
    return [change](const Reply& r) -> std::optional<std::string> {
      Reply m = r;
      if (!change(m)) return std::nullopt;
      return Render(m);
    };
  };
  auto on_text = [](std::string_view from, std::string_view to) {
    return [from = std::string(from), to = std::string(to)](const Reply& r) {
      return ReplaceFirst(Render(r), from, to);
    };
  };
  using Blocks_ = std::optional<std::vector<Block>>;
  return {
      {"drop <thinking>", "TML-1.5", with_blocks([](const Reply&, std::vector<Block> b) -> Blocks_ {
         return Without(b, Block::kThinking);
       })},
      {"drop <final>", "TML-1.6", with_blocks([](const Reply&, std::vector<Block> b) -> Blocks_ {
         return Without(b, Block::kFinal);
       })},
      {"duplicate <think>", "TML-1.3",
       with_blocks([](const Reply& r, std::vector<Block> b) -> Blocks_ {
         if (!r.think) return std::nullopt;
         return Duplicated(b, Block::kThink);
       })},
      {"duplicate <serp>", "TML-1.4",
       with_blocks([](const Reply& r, std::vector<Block> b) -> Blocks_ {
         if (!r.serp) return std::nullopt;
         return Duplicated(b, Block::kSerp);
       })},
      {"duplicate <thinking>", "TML-1.5",
       with_blocks([](const Reply&, std::vector<Block> b) -> Blocks_ {
         return Duplicated(b, Block::kThinking);
       })},
      {"duplicate <final>", "TML-1.6",
       with_blocks([](const Reply&, std::vector<Block> b) -> Blocks_ {
         return Duplicated(b, Block::kFinal);
       })},
      {"<final> before <thinking>", "TML-1.2",
       with_blocks([](const Reply&, std::vector<Block> b) -> Blocks_ {
         std::iter_swap(b.end() - 1, b.end() - 2);
         return b;
       })},
      {"<serp> before <think>", "TML-1.2",
       with_blocks([](const Reply& r, std::vector<Block> b) -> Blocks_ {
         if (!r.think || !r.serp) return std::nullopt;
         std::iter_swap(b.begin(), b.begin() + 1);
         return b;
       })},
      {"<serp> between </thinking> and <final>", "TML-1.2",
       with_blocks([](const Reply& r, std::vector<Block> b) -> Blocks_ {
         if (!r.serp) return std::nullopt;
         b = Without(b, Block::kSerp);
         b.insert(b.end() - 1, Block::kSerp);
         return b;
       })},
      {"no phases", "TML-3.1", with_reply([](Reply& m) {
         m.phases.clear();
         return true;
       })},
      {"first phase id 2", "TML-3.2", on_text("<phase id=\"1\">", "<phase id=\"2\">")},
      {"phase ids 1,3", "TML-3.2", on_text("<phase id=\"2\">", "<phase id=\"3\">")},
      {"phase id 0", "TML-3.2", on_text("<phase id=\"1\">", "<phase id=\"0\">")},
      {"phase without id", "TML-2.2", on_text("<phase id=\"1\">", "<phase>")},
      {"phase id in single quotes", "TML-2.2", on_text("<phase id=\"1\">", "<phase id='1'>")},
      {"missing title", "TML-3.3",
       [](const Reply& r) -> std::optional<std::string> {
         auto s = ReplaceFirst(Render(r), "<title>", "");
         return s ? ReplaceFirst(*s, "</title>", "") : s;
       }},
      {"second title", "TML-3.3", on_text("</title>", "</title><title>again</title>")},
      {"renamed <title>", "TML-2.1",
       [](const Reply& r) -> std::optional<std::string> {
         auto s = ReplaceFirst(Render(r), "<title>", "<Title>");
         return s ? ReplaceFirst(*s, "</title>", "</Title>") : s;
       }},
      {"renamed <final>", "TML-2.1",
       [](const Reply& r) -> std::optional<std::string> {
         auto s = ReplaceFirst(Render(r), "<final>", "<answer>");
         return s ? ReplaceFirst(*s, "</final>", "</answer>") : s;
       }},
      {"unclosed phase", "TML-1.1", on_text("</phase>", "")},
      {"stray closing tag", "TML-1.1", on_text("</thinking>", "</thinking></phase>")},
      {"<final> literal in a phase", "TML-1.11", on_text("</title>", "</title> 放进 <final> ")},
      {"text between </thinking> and <final>", "TML-1.7",
       on_text("</thinking>", "</thinking>说明")},
      {"text after </final>", "TML-1.9",
       [](const Reply& r) -> std::optional<std::string> { return Render(r) + "谢谢"; }},
      {"text before the first block", "TML-1.8",
       [](const Reply& r) -> std::optional<std::string> { return "前言" + Render(r); }},
      {"tag inside <think>", "TML-1.10",
       [](const Reply& r) -> std::optional<std::string> {
         if (!r.think) return std::nullopt;
         return ReplaceFirst(Render(r), "<think>", "<think><title>x</title>");
       }},
      {"<<ParsingError>> inside", "TML-2.3", on_text("<final>\n", "<final>\n<<ParsingError>>")},
      {"no queries block", "TML-4.1",
       [](const Reply& r) {
         return ReplaceFirst(Render(r), FormatSerpQueriesBlock(r.queries), "");
       }},
      {"one-line queries block", "TML-4.2",
       [](const Reply& r) {
         return ReplaceFirst(Render(r), FormatSerpQueriesBlock(r.queries),
                             "<!-- <serp_queries>[]</serp_queries> -->");
       }},
      {"six queries", "TML-4.4", with_reply([](Reply& m) {
         m.queries = {"1", "2", "3", "4", "5", "6"};
         return true;
       })},
      {"repeated query", "TML-4.5", with_reply([](Reply& m) {
         m.queries = {"深蹲", "深蹲"};
         return true;
       })},
      {"81-character query", "TML-4.6", with_reply([](Reply& m) {
         m.queries = {std::string(81, 'q')};
         return true;
       })},
      {"query with an e-mail address", "TML-4.7", with_reply([](Reply& m) {
         m.queries = {"联系 coach@gym.example.com"};
         return true;
       })},
      {"query with a phone number", "TML-4.7", with_reply([](Reply& m) {
         m.queries = {"教练电话 13800138000"};
         return true;
       })},
      {"query with an IP address", "TML-4.7", with_reply([](Reply& m) {
         m.queries = {"连接 192.168.0.1"};
         return true;
       })},
  };
}

// Offsets right after a '>' outside comments: where a forbidden tag can go
// without splitting anything.
std::vector<std::size_t> AfterTags(const std::string& s) {
  std::vector<std::size_t> out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, 4, "<!--") == 0) {
      const std::size_t end = s.find("-->", i + 4);
      if (end != std::string::npos) {
        i = end + 3;
        out.push_back(i);
        continue;
      }
    }
    if (s[i] == '>') out.push_back(i + 1);
    ++i;
  }
  return out;
}

RC_GTEST_PROP(ValidateProperties, EachMutationIsRejectedWithItsRule, ()) {
  const Reply r = *GenReply();
  static const std::vector<Mutation> catalogue = Catalogue();
  const Mutation& m = *rc::gen::elementOf(catalogue);
  const auto mutated = m.apply(r);
  RC_PRE(mutated.has_value());
  const Validation v = Validate(*mutated);
  RC_LOG() << m.name << "\n" << *mutated << "\n" << Describe(v);
  RC_ASSERT(!v.valid);
  RC_ASSERT(RuleSet(v).count(m.rule) == 1u);
}

RC_GTEST_PROP(ValidateProperties, AForbiddenTagAnywhereIsRejected, ()) {
  const Reply r = *GenReply();
  std::string text = Render(r);
  const auto spots = AfterTags(text);
  const std::size_t at = *rc::gen::elementOf(spots);
  const std::string tag =
      *rc::gen::element<std::string>("<br>", "<br/>", "<div class=\"x\">", "</b>", "<h1>",
                                     "<serp_queries>", "<中文>", "<https://example.com>");
  text.insert(at, tag);
  const Validation v = Validate(text);
  RC_LOG() << text << "\n" << Describe(v);
  RC_ASSERT(RuleSet(v).count("TML-2.1") == 1u);
}

// ---------------------------------------------------------------------------
// Robustness: any bytes get a verdict, with consistent findings.

void CheckInvariants(const std::string& text) {
  const Validation v = Validate(text);
  RC_ASSERT(v.valid == v.findings.empty());
  LineIndex lines(text);
  for (std::size_t i = 0; i < v.findings.size(); ++i) {
    const auto& f = v.findings[i];
    RC_ASSERT(f.offset <= text.size());
    RC_ASSERT(f.position == lines.PositionOf(f.offset));
    RC_ASSERT(f.rule.starts_with("TML-"));
    RC_ASSERT(!f.message.empty());
    if (i > 0) RC_ASSERT(v.findings[i - 1].offset <= f.offset);
  }
  const std::string escaped = EscapeThinkingFinalLiterals(text);
  Validate(escaped);
  RC_ASSERT(EscapeThinkingFinalLiterals(escaped) == escaped);  // idempotent
}

RC_GTEST_PROP(ValidateProperties, ArbitraryBytesNeverCrash, (const std::string& text)) {
  CheckInvariants(text);
}

RC_GTEST_PROP(ValidateProperties, TagSoupNeverCrashes, ()) {
  const auto pieces = *rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
      "<think>", "</think>", "<serp>", "</serp>", "<thinking>", "</thinking>", "<phase id=\"1\">",
      "<phase id=\"2\">", "<phase>", "</phase>", "<title>", "</title>", "<final>", "</final>",
      "<!--", "-->", "<serp_queries>", "</serp_queries>", "[\"q\"]", "\n", " ", "x", "中", "<", ">",
      "<<ParsingError>>", "<br/>", "\xFF", "&lt;"));
  std::string text;
  for (const auto& p : pieces) text += p;
  CheckInvariants(text);
}

}  // namespace
}  // namespace llmconform::thinkingml

// ---------------------------------------------------------------------------
// GymBro event sequences against a simple model.

namespace llmconform::gymbro {
namespace {

// An abstract event: what the generator varies.
struct Abstract {
  enum Kind { kStatus, kDelta, kHeartbeat, kCompleted, kError, kUnknown } kind;
  int variant;  // status: state index (3 = bogus); delta: seq offset (0 right, 1 skip, 2 missing);
                // heartbeat: 0 ms, 1 seconds; completed: 0 right reply_len, 1 wrong; error: 0
                // legacy same, 1 differs
  std::string text;  // delta text
};

rc::Gen<Abstract> GenAbstract() {
  return rc::gen::build<Abstract>(
      rc::gen::set(&Abstract::kind,
                   rc::gen::element(Abstract::kStatus, Abstract::kDelta, Abstract::kDelta,
                                    Abstract::kDelta, Abstract::kHeartbeat, Abstract::kCompleted,
                                    Abstract::kError, Abstract::kUnknown)),
      rc::gen::set(&Abstract::variant, rc::gen::inRange(0, 4)),
      rc::gen::set(&Abstract::text, rc::gen::element<std::string>("a", "中文", "<final>", "")));
}

struct Model {
  std::multiset<std::string> must, should;
  std::string reply;
  Termination termination = Termination::kNone;
};

// Renders the abstract events and, alongside, judges them the simple way.
std::vector<StreamEvent> Concretize(const std::vector<Abstract>& in, Model& model) {
  static const char* kStates[] = {"queued", "working", "routed", "bogus"};
  std::vector<StreamEvent> out;
  std::int64_t seq = 0;
  int rank = -1;
  bool ended = false;
  std::string joined;
  for (const Abstract& a : in) {
    const std::string ids = "\"message_id\":\"m\",\"request_id\":\"r\"";
    StreamEvent e;
    switch (a.kind) {
      case Abstract::kStatus: {
        const int s = a.variant % 4;
        e = {"status", Format("{{\"state\":\"{}\",{}}}", kStates[s], ids)};
        if (!ended) {
          if (s == 3 || s <= rank) {
            model.must.insert("GYMBRO-6.7");
          } else {
            rank = s;
          }
        }
        break;
      }
      case Abstract::kDelta: {
        const int v = a.variant % 3;
        const std::string delta = Format("\"delta\":\"{}\"", a.text);
        if (v == 2) {
          e = {"content_delta", "{" + ids + "," + delta + "}"};
        } else {
          const std::int64_t s = seq + 1 + v;
          e = {"content_delta", Format("{{{},\"seq\":{},{}}}", ids, s, delta)};
          if (!ended) {
            seq = s;
            if (v == 1) model.must.insert("GYMBRO-6.5");
          }
        }
        if (!ended) joined += a.text;
        if (!ended && v == 2) model.must.insert("GYMBRO-6.5");
        break;
      }
      case Abstract::kHeartbeat:
        e = {"heartbeat",
             Format("{{{},\"ts\":{}}}", ids, a.variant % 2 ? 1736253242 : 1736253242000)};
        if (!ended && a.variant % 2) model.must.insert("GYMBRO-6.12");
        break;
      case Abstract::kCompleted: {
        const std::size_t len = CountCodePoints(joined) + (a.variant % 2);
        e = {"completed", Format("{{{},\"reply_len\":{}}}", ids, len)};
        if (!ended && a.variant % 2) model.should.insert("GYMBRO-7.3");
        break;
      }
      case Abstract::kError:
        e = {"error", Format("{{{},\"code\":\"c\",\"message\":\"m\",\"error\":\"{}\"}}", ids,
                             a.variant % 2 ? "x" : "m")};
        if (!ended && a.variant % 2) model.must.insert("GYMBRO-6.11");
        break;
      case Abstract::kUnknown:
        e = {"ping", "{}"};
        if (!ended) model.should.insert("GYMBRO-6.1");
        break;
    }
    const bool terminal = a.kind == Abstract::kCompleted || a.kind == Abstract::kError;
    if (ended) {
      model.must.insert(terminal ? "GYMBRO-6.8" : "GYMBRO-6.9");
    } else if (terminal) {
      ended = true;
      model.termination =
          a.kind == Abstract::kCompleted ? Termination::kCompleted : Termination::kError;
    }
    out.push_back(std::move(e));
  }
  if (!ended) model.must.insert("GYMBRO-6.8");
  // Generated seqs only rise, so joining by seq is joining by arrival.
  model.reply = joined;
  return out;
}

RC_GTEST_PROP(CheckEventsProperties, JudgesLikeTheModel, ()) {
  const auto abstract = *rc::gen::container<std::vector<Abstract>>(GenAbstract());
  Model model;
  const auto events = Concretize(abstract, model);
  const EventCheck c = CheckEvents(events);
  std::multiset<std::string> must, should;
  for (const auto& f : c.findings) (f.severity == Severity::kMust ? must : should).insert(f.rule);
  RC_ASSERT(std::set<std::string>(must.begin(), must.end()) ==
            std::set<std::string>(model.must.begin(), model.must.end()));
  RC_ASSERT(std::set<std::string>(should.begin(), should.end()) ==
            std::set<std::string>(model.should.begin(), model.should.end()));
  RC_ASSERT(c.valid == model.must.empty());
  RC_ASSERT(c.reply == model.reply);
  RC_ASSERT(c.termination == model.termination);
}

}  // namespace
}  // namespace llmconform::gymbro
