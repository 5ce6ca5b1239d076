// A2UI: the v0.9 dialect is checked line by line against the A2UI v0.9 JSON schemas shipped in
// @a2ui/web_core (read from node_modules at run time) and then rendered into state by
// web_core's own MessageProcessor with the basic catalog. The flat a2ui/1 dialect is read as
// arena clients read it (split on newlines, switch on `kind`).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { MessageProcessor } from "@a2ui/web_core/v0_9";
import { basicCatalog } from "@a2ui/web_core/v0_9/basic_catalog";
import { check, run, vote } from "./_common.mjs";

const require = createRequire(import.meta.url);
const schemas = join(dirname(require.resolve("@a2ui/web_core/v0_9")), "schemas");
const load = (name) => JSON.parse(readFileSync(join(schemas, name), "utf8"));

function validator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(load("common_types.json"));
  // server_to_client.json refers to "catalog.json": the catalog in use, here the basic one.
  const catalog = load("catalogs/basic/catalog.json");
  ajv.addSchema({ ...catalog, $id: "https://a2ui.org/specification/v0_9/catalog.json" });
  return ajv.compile(load("server_to_client.json"));
}

async function lines(base, protocol, body) {
  const response = await fetch(`${base}/api/arena/chat?protocol=${protocol}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  check(response.status === 200, `status ${response.status}`);
  check(response.headers.get("content-type").startsWith("application/x-ndjson"), "not NDJSON");
  const text = await response.text();
  check(text.endsWith("\n"), "the last line is not terminated");
  return text.split("\n").filter((line) => line.length > 0).map((line) => JSON.parse(line));
}

async function v09Round(base, body) {
  const validate = validator();
  const messages = await lines(base, "a2ui-v0.9", body);
  messages.forEach((message, index) => {
    if (!validate(message)) {
      throw new Error(`line ${index} is not A2UI v0.9: ${JSON.stringify(validate.errors)}`);
    }
  });
  const processor = new MessageProcessor([basicCatalog]);
  processor.processMessages(messages);
  const surfaces = {};
  for (const [id, surface] of processor.model.surfacesMap) {
    surfaces[surface.dataModel.get("/slot")] = {
      id,
      text: surface.dataModel.get("/text"),
      status: surface.dataModel.get("/status"),
      error: surface.dataModel.get("/error"),
      matchup: surface.dataModel.get("/matchup"),
    };
  }
  return { lines: messages.length, surfaces, metadata: surfaces.A?.matchup };
}

async function flatRound(base, body) {
  const round = { texts: {}, errors: {}, done: new Set(), terminal: undefined };
  for (const message of await lines(base, "a2ui", body)) {
    check(message.v === "a2ui/1", `unversioned line ${JSON.stringify(message)}`);
    switch (message.kind) {
      case "surface_init": round.metadata = message; break;
      case "text_append": round.texts[message.surface] = (round.texts[message.surface] ?? "") + message.text; break;
      case "error": round.errors[message.surface] = message.message; break;
      case "surface_done": round.done.add(message.surface); break;
      case "session_done": round.terminal = "done"; break;
      case "session_error": round.terminal = `error:${message.code}`; break;
      default: throw new Error(`unknown kind ${message.kind}`);
    }
  }
  return round;
}

run(async ({ base, scenario }) => {
  const sessionId = `a2ui-${crypto.randomUUID()}`;
  const v09 = await v09Round(base, { prompt: "Explain JWTs", sessionId });
  const flat = await flatRound(base, { prompt: "Explain JWTs", sessionId });
  if (scenario === "run-error") {
    const statuses = Object.values(v09.surfaces).map((s) => s.status);
    check(statuses.every((s) => s === "failed"), `v0.9 statuses ${statuses}`);
    check(flat.terminal === "error:stream_failed", `flat terminal ${flat.terminal}`);
    return { v09Statuses: statuses, flatTerminal: flat.terminal };
  }
  check(v09.metadata?.matchupToken && flat.metadata?.matchupToken, "no vote token");
  check(flat.terminal === "done", `flat terminal ${flat.terminal}`);
  if (scenario === "slot-failure") {
    const failed = Object.entries(v09.surfaces).filter(([, s]) => s.status === "error");
    check(failed.length === 1, "expected one failed v0.9 surface");
    check(Object.keys(flat.errors).length === 1, "expected one flat error line");
    return {
      texts: Object.fromEntries(Object.entries(v09.surfaces).map(([k, s]) => [k, s.text])),
      failedSlot: failed[0][0],
      flatTexts: flat.texts,
    };
  }
  check(Object.values(v09.surfaces).every((s) => s.status === "done"), "v0.9 surfaces not done");
  await vote(base, v09.metadata, "left");
  const followV09 = await v09Round(base, {
    prompt: "Go deeper",
    sessionId,
    conversationId: v09.metadata.conversationId,
  });
  await vote(base, flat.metadata, "left");
  const followFlat = await flatRound(base, {
    prompt: "Go deeper",
    sessionId,
    conversationId: flat.metadata.conversationId,
  });
  return {
    texts: Object.fromEntries(Object.entries(v09.surfaces).map(([k, s]) => [k, s.text])),
    flatTexts: flat.texts,
    turnIndexes: [v09.metadata.turnIndex, followV09.metadata.turnIndex],
    flatTurnIndexes: [flat.metadata.turnIndex, followFlat.metadata.turnIndex],
    sameConversation: followV09.metadata.conversationId === v09.metadata.conversationId,
    lines: v09.lines,
  };
});
