#include "harness/difftest/check_run.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <functional>
#include <mutex>
#include <ostream>
#include <set>
#include <thread>

#include "base/atomic_file.h"
#include "base/format.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "harness/difftest/generators.h"
#include "harness/difftest/op_schema.h"
#include "harness/difftest/sut_process.h"
#include "harness/oracle.h"
#include "harness/scenario.h"

namespace llmconform::harness::difftest {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kBatch = 4096;

// One compared case.
struct Verdict {
  bool agree = true;
  std::string key;  // the group key when they disagree
  Decision decision;
  std::vector<std::string> pointers;
  std::string sut_failure;
  Json expected;
  Json actual;
};

struct OpContext {
  const OracleOp* op = nullptr;
  std::vector<std::string> compare;
  const rc::Gen<Json>* gen = nullptr;
};

Json Reference(const OracleOp& op, const Json& input) {
  try {
    auto r = op.run(input);
    if (r) return Json{{"output", std::move(*r)}};
    return Json{{"error", r.error().message}};
  } catch (const std::exception& e) {
    return Json{{"error", Format("internal error of the reference: {}", e.what())}};
  }
}

Decision DecidingOf(std::string_view op, const Json& input, const Json& expected,
                    const Json& actual) {
  return expected.contains("output") ? DecidingRule(op, input, expected["output"], actual)
                                     : Decision{};
}

// "SKILL-CLEAN-6 echo", "ACT-11", "-" for none.
std::string DecisionText(const Decision& d) {
  if (d.rule.empty()) return "-";
  return d.step.empty() ? d.rule : d.rule + " " + d.step;
}

// Agreeing cases (nearly all of them) copy nothing: `expected` and `actual`
// are filled only for a disagreement.
Verdict Judge(const OpContext& ctx, const Json& input, const Json& expected,
              const SutAnswer& answer) {
  Verdict v;
  auto fill = [&] {
    v.expected = expected;
    if (answer.kind == SutAnswer::Kind::kOutput) {
      v.actual = Json{{"output", answer.value}};
    } else if (answer.kind == SutAnswer::Kind::kError) {
      v.actual = Json{{"error", answer.value}};
    } else {
      v.actual = Json{{"failure", v.sut_failure}, {"detail", answer.detail}};
    }
  };
  if (answer.kind != SutAnswer::Kind::kOutput && answer.kind != SutAnswer::Kind::kError) {
    v.agree = false;
    v.sut_failure = std::string(SutAnswerKindName(answer.kind));
    v.key = "sut: " + v.sut_failure;
    fill();
    return v;
  }
  const bool want_output = expected.contains("output");
  const bool got_output = answer.kind == SutAnswer::Kind::kOutput;
  if (want_output != got_output) {
    fill();
    v.agree = false;
    v.pointers = {""};
    v.decision = DecidingOf(ctx.op->name, input, expected, Json());
    v.key = Format("{} {}", DecisionText(v.decision),
                   want_output ? "(an error where the reference answers)"
                               : "(an answer where the reference refuses the input)");
    return v;
  }
  if (!want_output) return v;  // both refuse the input: messages are not compared
  v.pointers = DifferingPointers(expected["output"], answer.value, ctx.compare);
  if (v.pointers.empty()) return v;
  fill();
  v.agree = false;
  v.decision = DecidingOf(ctx.op->name, input, expected, answer.value);
  std::string joined;
  for (const auto& p : v.pointers) joined += " " + (p.empty() ? std::string("\"\"") : p);
  v.key = DecisionText(v.decision) + joined;
  return v;
}

// A group keeps (and saves) an expected or actual answer of at most this
// much JSON; a larger one is kept as its size and its beginning.
constexpr std::size_t kMaxKeptAnswerBytes = 1 << 20;
constexpr std::size_t kKeptExcerptBytes = 64 * 1024;

Json Capped(const Json& value) {
  std::string text = DumpJson(value);
  if (text.size() <= kMaxKeptAnswerBytes) return value;
  const std::size_t bytes = text.size();
  text.resize(kKeptExcerptBytes);
  return Json{{"cut", Format("{} bytes of JSON, longer than the {} a failure keeps", bytes,
                             kMaxKeptAnswerBytes)},
              {"begins", std::move(text)}};
}

// Disagreements the same way: the same group (SUT failure, or decision and
// differing pointers).
bool SameWay(const Verdict& v, const Group& g) { return !v.agree && v.key == g.key; }

std::string FileSafe(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  }
  return s;
}

class Checker {
 public:
  Checker(const CheckOptions& options, std::ostream& progress)
      : options_(options),
        progress_(progress),
        sut_(SutOptions{.command = options.sut_command,
                        .case_timeout = options.case_timeout,
                        .window = options.window}) {}

  std::expected<CheckReport, Error> Run() {
    const auto t0 = Clock::now();
    CheckReport report;
    report.seed = options_.seed;
    // Resolve every op first: usage errors before any work.
    std::vector<OpContext> contexts;
    for (const auto& name : options_.ops) {
      auto ctx = Resolve(name, /*need_generator=*/options_.replay.empty());
      if (!ctx) return std::unexpected(ctx.error());
      contexts.push_back(*ctx);
    }
    // The catalogues only say what --coverage measures: a run goes on without them.
    if (auto specs = LoadSpecs(options_.specs_dir)) catalogues_ = std::move(specs->rules);
    auto replays = LoadCases(options_.replay, "replay");
    if (!replays) return std::unexpected(replays.error());
    auto corpus = options_.corpus.empty() || !options_.replay.empty()
                      ? std::expected<std::vector<SavedCase>, Error>(std::vector<SavedCase>{})
                      : LoadCases({options_.corpus}, "corpus", /*missing_ok=*/true);
    if (!corpus) return std::unexpected(corpus.error());
    for (const auto& ctx : contexts) {
      OpResult result;
      result.op = std::string(ctx.op->name);
      result.rules = RulesToCover(ctx.op->name, catalogues_);
      std::vector<SavedCase> first;
      for (const auto& c : options_.replay.empty() ? *corpus : *replays)
        if (c.op == result.op) first.push_back(c);
      if (auto ok = RunSaved(ctx, first, result, options_.replay.empty() ? "corpus" : "replay");
          !ok)
        return std::unexpected(ok.error());
      if (options_.replay.empty()) {
        if (auto ok = RunGenerated(ctx, result); !ok) return std::unexpected(ok.error());
      }
      report.cases += result.cases;
      report.ops.push_back(std::move(result));
    }
    report.sut_restarts = sut_.restarts();
    report.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return report;
  }

 private:
  struct SavedCase {
    std::string op;
    Json input;
    fs::path file;
  };

  std::expected<OpContext, Error> Resolve(const std::string& name, bool need_generator) {
    OpContext ctx;
    ctx.op = FindOracleOperation(name);
    if (!ctx.op)
      return std::unexpected(Error::NotFound(
          Format("--op {}: no such operation (see `llmconform ref --list`)", name)));
    ctx.gen = InputGenerator(name);
    if (!ctx.gen && need_generator) {
      std::string have;
      for (const auto& g : GeneratedOps()) have += (have.empty() ? "" : ", ") + g;
      return std::unexpected(Error{
          Format("--op {}: check has no input generator for it yet; it has: {}", name, have)});
    }
    if (!options_.compare.empty()) {
      for (const auto& p : options_.compare) {
        if (auto ok = CheckComparePointer(p); !ok) return std::unexpected(ok.error());
      }
      ctx.compare = options_.compare;
    } else {
      auto schema = LoadOpSchema(options_.specs_dir, name);
      if (!schema) return std::unexpected(schema.error());
      ctx.compare = schema->compare;
    }
    return ctx;
  }

  // Replay files: {"op", "input", …} each, from files or folders of *.json.
  std::expected<std::vector<SavedCase>, Error> LoadCases(const std::vector<fs::path>& paths,
                                                         std::string_view what,
                                                         bool missing_ok = false) {
    std::vector<SavedCase> out;
    for (const auto& path : paths) {
      std::error_code ec;
      std::vector<fs::path> files;
      if (fs::is_directory(path, ec)) {
        for (const auto& e : fs::directory_iterator(path, ec))
          if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
        std::sort(files.begin(), files.end());
      } else if (fs::exists(path, ec)) {
        files.push_back(path);
      } else if (missing_ok) {
        continue;
      } else {
        return std::unexpected(
            Error::NotFound(Format("--{} {}: no such file or folder", what, path.string())));
      }
      for (const auto& file : files) {
        auto text = ReadFile(file);
        if (!text) return std::unexpected(text.error());
        auto doc = ReadJson(file.string(), *text);
        if (!doc) return std::unexpected(doc.error());
        if (!doc->is_object() || !(*doc).contains("op") || !(*doc)["op"].is_string() ||
            !doc->contains("input"))
          return std::unexpected(Error{Format(
              "{}: expected a check case {{\"op\": string, \"input\": …}} as check saves them",
              file.string())});
        out.push_back({(*doc)["op"].get<std::string>(), (*doc)["input"], file});
      }
    }
    return out;
  }

  using OnVerdict = std::function<void(std::size_t index, Verdict verdict)>;

  // Sends `inputs` to the SUT pipelined and judges each answer as it
  // arrives: `on_verdict` gets each, and nothing of an answer is kept past
  // its verdict. At `deadline` it stops: the cases not answered by then are
  // not judged. Returns how many were.
  std::expected<std::size_t, Error> Evaluate(
      const OpContext& ctx, const std::vector<Json>& inputs, OpResult* result,
      const OnVerdict& on_verdict, Clock::time_point deadline = Clock::time_point::max()) {
    // The reference answers the batch (on its own thread) while the SUT works
    // through it; each answer waits for the reference's, then both go.
    std::vector<Json> expected(inputs.size());
    std::mutex mu;
    std::condition_variable cv;
    std::size_t ready = 0;
    bool stop = false;
    std::thread reference([&] {
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        Json e = Reference(*ctx.op, inputs[i]);
        std::lock_guard lock(mu);
        if (stop) return;
        expected[i] = std::move(e);
        ready = i + 1;
        cv.notify_all();
      }
    });
    auto judged = sut_.Exchange(
        ctx.op->name, inputs,
        [&](std::size_t i, SutAnswer answer) {
          Json want;
          {
            std::unique_lock lock(mu);
            cv.wait(lock, [&] { return ready > i; });
            want = std::move(expected[i]);
          }
          if (result && want.contains("output")) {
            for (const auto& r : TriggeredRules(ctx.op->name, inputs[i], want["output"]))
              ++result->triggered[r];
          }
          on_verdict(i, Judge(ctx, inputs[i], want, answer));
        },
        deadline);
    {
      std::lock_guard lock(mu);
      stop = true;
    }
    reference.join();
    if (!judged)
      return std::unexpected(
          Error{Format("--sut '{}': {}", options_.sut_command, judged.error().message)});
    return *judged;
  }

  Group* FindGroup(OpResult& result, const std::string& key) {
    for (auto& g : result.groups)
      if (g.key == key) return &g;
    return nullptr;
  }

  bool ShowMore() const { return shown_ < options_.max_failures; }

  // Records a disagreement; returns the new group when it opens one that
  // will be shown (the caller shrinks it).
  Group* Note(OpResult& result, const Json& input, const Verdict& v, std::string origin) {
    ++result.disagreements;
    if (Group* g = FindGroup(result, v.key)) {
      ++g->count;
      return nullptr;
    }
    if (!ShowMore()) {
      if (hidden_keys_.insert(result.op + "\n" + v.key).second) ++result.groups_not_shown;
      return nullptr;
    }
    ++shown_;
    Group g;
    g.op = result.op;
    g.key = v.key;
    g.rule = v.decision.rule;
    g.step = v.decision.step;
    g.pointers = v.pointers;
    g.sut_failure = v.sut_failure;
    g.count = 1;
    g.original = input;
    g.input = input;
    g.expected = Capped(v.expected);
    g.actual = Capped(v.actual);
    g.origin = std::move(origin);
    result.groups.push_back(std::move(g));
    return &result.groups.back();
  }

  std::expected<void, Error> RunSaved(const OpContext& ctx, const std::vector<SavedCase>& cases,
                                      OpResult& result, std::string_view what) {
    if (cases.empty()) return {};
    std::vector<Json> inputs;
    for (const auto& c : cases) inputs.push_back(c.input);
    auto judged = Evaluate(ctx, inputs, &result, [&](std::size_t i, const Verdict& v) {
      if (v.agree) return;
      if (Group* g = Note(result, inputs[i], v, Format("{} {}", what, cases[i].file.string())))
        g->replay_file = cases[i].file;
    });
    if (!judged) return std::unexpected(judged.error());
    result.cases += *judged;
    result.corpus_cases += *judged;
    return {};
  }

  rc::Shrinkable<Json> Generate(const OpContext& ctx, std::size_t index) const {
    return GenerateCase(*ctx.gen, options_.seed, index);
  }

  std::expected<void, Error> RunGenerated(const OpContext& ctx, OpResult& result) {
    const auto t0 = Clock::now();
    std::vector<std::pair<std::size_t, std::size_t>> to_shrink;  // group index, case index
    const std::size_t total = static_cast<std::size_t>(std::max(0, options_.cases));
    // --time-limit bounds the exchanges themselves, not only when a batch starts.
    const Clock::time_point deadline =
        options_.time_limit_s > 0 ? t0 + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(options_.time_limit_s))
                                  : Clock::time_point::max();
    for (std::size_t start = 0; start < total; start += kBatch) {
      if (Clock::now() >= deadline) break;
      const std::size_t end = std::min(total, start + kBatch);
      std::vector<Json> inputs;
      inputs.reserve(end - start);
      for (std::size_t i = start; i < end; ++i) inputs.push_back(Generate(ctx, i).value());
      auto judged = Evaluate(
          ctx, inputs, &result,
          [&](std::size_t k, const Verdict& v) {
            if (v.agree) return;
            if (Note(result, inputs[k], v,
                     Format("generated (seed {}, case {})", options_.seed, start + k)))
              to_shrink.emplace_back(result.groups.size() - 1, start + k);
          },
          deadline);
      if (!judged) return std::unexpected(judged.error());
      result.cases += *judged;
    }
    progress_ << Format("check {}: {} case(s), {} disagreement(s) in {} group(s)\n", result.op,
                        result.cases, result.disagreements,
                        result.groups.size() + result.groups_not_shown);
    for (const auto& [group, index] : to_shrink) {
      if (auto ok = Shrink(ctx, result.groups[group], index); !ok)
        return std::unexpected(ok.error());
    }
    for (auto& g : result.groups) {
      if (g.replay_file.empty()) Save(g);
    }
    return {};
  }

  // Walks rapidcheck's shrink tree from the case: a candidate is taken when
  // it still disagrees the same way (it falls in the same group).
  std::expected<void, Error> Shrink(const OpContext& ctx, Group& g, std::size_t index) {
    rc::Shrinkable<Json> current = Generate(ctx, index);
    // A SUT that hangs costs a timeout per try: shrink those a little only.
    int budget = g.sut_failure == "timeout" ? 8 : options_.max_shrink_steps;
    bool progressed = true;
    while (progressed && budget > 0) {
      progressed = false;
      auto shrinks = current.shrinks();
      while (auto candidate = shrinks.next()) {
        if (--budget < 0) break;
        const Json input = candidate->value();
        Verdict v;
        auto judged = Evaluate(ctx, {input}, nullptr,
                               [&](std::size_t, Verdict verdict) { v = std::move(verdict); });
        if (!judged) return std::unexpected(judged.error());
        if (!SameWay(v, g)) continue;
        current = std::move(*candidate);
        g.input = input;
        g.expected = Capped(v.expected);
        g.actual = Capped(v.actual);
        ++g.shrink_steps;
        progressed = true;
        break;
      }
    }
    return {};
  }

  void Save(Group& g) {
    const fs::path dir = options_.corpus.empty() ? options_.failures_dir : options_.corpus;
    if (dir.empty()) return;
    // Named by a stable hash of the input (which may hold invalid UTF-8).
    const std::string name = Format("{}-{:016x}.json", FileSafe(g.op), Fnv1a64(DumpJson(g.input)));
    Json doc{{"op", g.op},     {"input", g.input}, {"expected", g.expected}, {"actual", g.actual},
             {"rule", g.rule}, {"step", g.step},   {"pointers", g.pointers}, {"found", g.origin}};
    std::error_code ec;
    fs::create_directories(dir, ec);
    const std::string text = doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
    if (WriteFileAtomically(dir / name, text)) g.replay_file = dir / name;
  }

  const CheckOptions& options_;
  std::ostream& progress_;
  Sut sut_;
  int shown_ = 0;
  std::set<std::string> hidden_keys_;
  std::map<std::string, RuleCatalog> catalogues_;
};

}  // namespace

bool CheckReport::AnyDisagreement() const {
  return std::any_of(ops.begin(), ops.end(), [](const OpResult& o) { return o.disagreements > 0; });
}

std::expected<CheckReport, Error> RunCheck(const CheckOptions& options, std::ostream& progress) {
  if (options.ops.empty()) return std::unexpected(Error{"name at least one --op"});
  Checker checker(options, progress);
  return checker.Run();
}

}  // namespace llmconform::harness::difftest
