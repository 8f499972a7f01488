#include "mockllm/redaction.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <numeric>

#include "base/format.h"
#include "base/json_read.h"
#include "mockllm/canonical.h"
#include "mockllm/secrets.h"

namespace llmconform::mockllm {
namespace {

// Replaces the values a pattern names with "[redacted]".
void RedactAt(OJson& j, const std::vector<std::string>& tokens, std::size_t depth) {
  if (depth == tokens.size()) {
    j = std::string(kRedacted);
    return;
  }
  const std::string& token = tokens[depth];
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (token == "*" || it.key() == token) RedactAt(*it, tokens, depth + 1);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (token == "*" || token == std::to_string(i)) RedactAt(j[i], tokens, depth + 1);
    }
  }
}

// Secret fields and secret-looking text anywhere in `j`.
template <typename J>
bool RedactSecretsIn(J& j) {
  bool changed = false;
  if (j.is_string()) {
    changed = RedactTextInPlace(j.template get_ref<std::string&>());
  } else if (j.is_array()) {
    for (J& e : j) changed |= RedactSecretsIn(e);
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it->is_string() && IsSecretField(it.key(), it->template get_ref<const std::string&>()) &&
          !IsRedactedValue(it->template get_ref<const std::string&>())) {
        *it = std::string(kRedacted);
        changed = true;
      } else {
        changed |= RedactSecretsIn(*it);
      }
    }
  }
  return changed;
}

}  // namespace

bool RedactSecrets(OJson& j) { return RedactSecretsIn(j); }
bool RedactSecrets(nlohmann::json& j) { return RedactSecretsIn(j); }

bool RedactChunks(std::vector<Chunk>& chunks) {
  std::string joined;
  for (const Chunk& c : chunks) joined += c.raw;
  return RedactChunks(chunks, joined);
}

bool RedactChunks(std::vector<Chunk>& chunks, std::string_view joined) {
  assert(std::accumulate(chunks.begin(), chunks.end(), std::size_t{0},
                         [](std::size_t n, const Chunk& c) { return n + c.raw.size(); }) ==
         joined.size());
  const std::vector<SecretMatch> found = FindSecretsInText(joined);
  if (found.empty()) return false;
  auto next = found.begin();  // the first secret that does not end before this chunk
  std::size_t start = 0;      // this chunk's first byte in `joined`
  for (Chunk& c : chunks) {
    const std::size_t end = start + c.raw.size();
    std::string out;
    std::size_t at = start;
    while (next != found.end() && next->pos < end) {
      if (next->pos >= at) {
        out.append(joined, at, next->pos - at);
        out.append(kRedacted);
      }
      at = std::max(at, next->pos + next->len);
      if (at > end) break;  // the secret goes on into the next chunk
      ++next;
    }
    if (at < end) out.append(joined, at, end - at);
    c.raw = std::move(out);
    start = end;
  }
  return true;
}

void AppendRead(std::vector<Chunk>& chunks, std::size_t& joined, std::int64_t t_ms,
                std::string_view bytes, std::size_t max_chunks) {
  if (chunks.empty() || chunks.size() < max_chunks) {
    chunks.push_back(Chunk{t_ms, std::string(bytes)});
    return;
  }
  chunks.back().raw.append(bytes);
  ++joined;
}

bool HopByHop(std::string_view lower) {
  return lower == "host" || lower == "connection" || lower == "keep-alive" ||
         lower == "proxy-connection" || lower == "te" || lower == "trailer" ||
         lower == "transfer-encoding" || lower == "upgrade" || lower == "content-length" ||
         lower == "accept-encoding" || lower == "content-encoding";
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void HeaderObject::Set(std::string lower, std::string value) {
  const auto [it, fresh] = at_.try_emplace(lower, pairs_.size());
  if (fresh) {
    pairs_.emplace_back(std::move(lower), std::move(value));
  } else {
    pairs_[it->second].second = std::move(value);
  }
}

OJson HeaderObject::Take() && {
  OJson out = OJson::object();
  // The members go in as they are: no name repeats, so no search is needed.
  auto& members = static_cast<std::vector<std::pair<const std::string, OJson>>&>(
      out.get_ref<OJson::object_t&>());
  members.reserve(pairs_.size());
  for (auto& [name, value] : pairs_) members.emplace_back(std::move(name), OJson(std::move(value)));
  pairs_.clear();
  at_.clear();
  return out;
}

OJson ParseShallowJson(std::string_view text) {
  return llmconform::ReadOrderedJsonOrDiscarded(text);
}

bool Redactor::SecretHeader(const std::string& lower, std::string_view value) const {
  return IsSecretField(lower, value) || redact_headers_.contains(lower);
}

std::string Redactor::HeaderValue(const std::string& lower, std::string_view value) const {
  return SecretHeader(lower, value) ? std::string(kRedacted) : RedactText(value);
}

OJson Redactor::Body(OJson body) const {
  for (const auto& tokens : redact_json_) RedactAt(body, tokens, 0);
  RedactSecrets(body);
  return body;
}

OJson Redactor::RequestBody(std::string_view raw) const {
  OJson body = ParseShallowJson(raw);
  return Body(body.is_discarded() ? OJson(std::string(raw)) : std::move(body));
}

void Redactor::SetResponseBody(RecordedResponse& r, std::string_view raw) const {
  OJson body = ParseShallowJson(raw);
  if (!body.is_discarded()) {
    const bool exact = body.dump() == raw;
    OJson redacted = Body(body);
    if (exact || redacted != body) {
      r.body = std::move(redacted);
    } else {
      r.raw = RedactText(raw);
    }
  } else if (!raw.empty()) {
    r.raw = RedactText(raw);
  }
}

Exchange Redactor::Record(const WireExchange& w) const {
  Exchange x;
  x.request.method = w.method;
  x.request.path = w.path;
  HeaderObject request_headers;
  for (const auto& [name, value] : w.request_headers) {
    if (!HopByHop(name)) request_headers.Set(name, HeaderValue(name, value));
  }
  x.request.headers = std::move(request_headers).Take();
  if (!w.request_body.empty()) x.request.body = RequestBody(w.request_body);
  x.response.status = w.status;
  HeaderObject headers;
  for (const auto& [name, value] : w.response_headers) {
    std::string lower = Lower(name);
    // A header no response can carry would make the trace unloadable.
    if (!HopByHop(lower) && !ResponseHeaderProblem(lower, value))
      headers.Set(lower, HeaderValue(lower, value));
  }
  x.response.headers = std::move(headers).Take();
  if (w.streamed) {
    x.response.streamed = true;
    x.response.chunks = w.pieces;
    RedactChunks(x.response.chunks);
    std::size_t total = 0;
    for (const Chunk& c : x.response.chunks) total += c.raw.size();
    if (!w.complete) x.fault = OJson{{"cut_after_bytes", total}};
    if (w.joined_reads > 0) {
      x.extra["note"] = llmconform::Format(
          "the body came in {} reads: the last {} are joined to chunk {} (a recording keeps at "
          "most {} chunks)",
          w.pieces.size() + w.joined_reads, w.joined_reads, w.pieces.size() - 1, w.pieces.size());
    }
  } else {
    std::string raw;
    for (const Chunk& c : w.pieces) raw += c.raw;
    SetResponseBody(x.response, raw);
  }
  return x;
}

}  // namespace llmconform::mockllm
