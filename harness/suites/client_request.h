// The client profile's neutral call (specs/client/*.json "input") in each API
// surface's own request shape: what the reference client sends, and what the
// adapters of examples/clients/ build with their SDKs (docs/gate.md, "Client
// profile"; fixtures/synthesized/generate_client_surfaces.py writes the
// traces' requests the same way).
//
// Neutral form: {"surface", "model", "messages": [{"role", "content": text}],
// "tools"?: [{"type": "function", "function": {"name", "description",
// "parameters"}}], "stream": bool, "options"?: {"max_retries"?,
// "params"?: {extra body fields}}}. Per surface:
//   chat       POST /v1/chat/completions {model, messages, tools?, stream?: true}
//   responses  POST /v1/responses {model, input: [{role, content}],
//              tools?: [{type: "function", name, description, parameters}], stream?: true}
//   messages   POST /v1/messages {model, messages: [{role, content}],
//              tools?: [{name, description, input_schema}], stream?: true}
//   gemini     POST /v1beta/models/{model}:generateContent (streamed:
//              :streamGenerateContent?alt=sse) {contents: [{role: user|model,
//              parts: [{text}]}], tools?: [{functionDeclarations: [{name,
//              description, parametersJsonSchema}]}]}
// and options.params merged into the body last (max_tokens for messages,
// which requires it).
#pragma once

#include <expected>
#include <nlohmann/json.hpp>
#include <string>

#include "base/error.h"
#include "protocols/wire/surface.h"

namespace llmconform::harness::client_suite {

struct SurfaceRequest {
  wire::Surface surface = wire::Surface::kChat;
  std::string path;  // from the server's root ("/v1/…", "/v1beta/…"), query included
  nlohmann::json body;
};

// The scenario input's surface; an error located at /input/surface for a
// missing or unknown one.
std::expected<wire::Surface, Error> InputSurface(const nlohmann::json& input);

// The request the (already validated) input describes. Messages of roles
// other than user and assistant are refused (located at /input/messages/N/role)
// on the messages and gemini surfaces, whose neutral form has no place for them.
std::expected<SurfaceRequest, Error> RequestFor(const nlohmann::json& input);

// The server's root a request's path is under: `base_url` (mockllm's pinned
// "…/t/<id>/v1") without its trailing "/v1".
std::string ServerRoot(std::string base_url);

}  // namespace llmconform::harness::client_suite
