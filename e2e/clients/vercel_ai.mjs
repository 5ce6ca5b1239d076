// Vercel AI SDK: the real Chat (useChat's framework-free core, AbstractChat) with the
// DefaultChatTransport, in the AI SDK line named by the job ("ai" = current, "ai-v5" = v5).
import { PNG_BASE64, check, run, vote } from "./_common.mjs";

class MemoryState {
  constructor() {
    this.status = "ready";
    this.error = undefined;
    this.messages = [];
  }
  pushMessage = (message) => void this.messages.push(message);
  popMessage = () => void this.messages.pop();
  replaceMessage = (index, message) => void (this.messages[index] = message);
  snapshot = (thing) => structuredClone(thing);
}

function readAssistant(message) {
  const texts = { A: "", B: "" };
  let metadata;
  const slotErrors = [];
  let main = "A";
  for (const part of message?.parts ?? []) {
    if (part.type === "data-arena-meta") {
      metadata = part.data;
      main = part.data.mainSlot;
    }
  }
  for (const part of message?.parts ?? []) {
    if (part.type === "text") texts[main] += part.text;
    if (part.type === "data-arena-b-delta") texts.B += part.data.text;
    if (part.type === "data-arena-error") slotErrors.push(part.data);
  }
  return { metadata, texts, slotErrors };
}

run(async ({ base, scenario, line }) => {
  const { AbstractChat, DefaultChatTransport } = await import(line);
  const sessionId = `vercel-${crypto.randomUUID()}`;
  const state = new MemoryState();
  const errors = [];
  class Chat extends AbstractChat {
    constructor(init) {
      super({ ...init, state });
    }
  }
  const chat = new Chat({
    transport: new DefaultChatTransport({
      api: `${base}/api/arena/chat?protocol=vercel-ai`,
      body: { sessionId },
    }),
    onError: (error) => void errors.push(String(error)),
  });

  if (scenario === "image") {
    // What a file input or a paste gives sendMessage: a file part with a data URL.
    await chat.sendMessage({
      text: "What is in this picture?",
      files: [
        {
          type: "file",
          mediaType: "image/png",
          filename: "picture.png",
          url: `data:image/png;base64,${PNG_BASE64}`,
        },
      ],
    });
    check(state.status === "ready", `status ${state.status}: ${state.error} ${errors}`);
    const sent = state.messages[0].parts.map((part) => part.type);
    return { texts: readAssistant(state.messages.at(-1)).texts, sentParts: sent };
  }
  await chat.sendMessage({ text: "Explain JWTs in simple terms" });
  const first = readAssistant(state.messages.at(-1));
  if (scenario === "run-error") {
    check(state.status === "error", `status is ${state.status}, not error`);
    return { status: state.status, error: String(state.error?.message ?? state.error) };
  }
  check(state.status === "ready", `status ${state.status}: ${state.error} ${errors}`);
  check(first.metadata?.matchupToken, "no data-arena-meta part with a token");
  if (scenario === "slot-failure") {
    check(first.slotErrors.length === 1, "expected one data-arena-error part");
    return { texts: first.texts, failedSlot: first.slotErrors[0].slot };
  }
  await vote(base, first.metadata, "left");
  await chat.sendMessage(
    { text: "Go deeper" },
    { body: { conversationId: first.metadata.conversationId } },
  );
  check(state.status === "ready", `follow-up status ${state.status}: ${state.error}`);
  const second = readAssistant(state.messages.at(-1));
  return {
    texts: first.texts,
    turnIndexes: [first.metadata.turnIndex, second.metadata.turnIndex],
    sameConversation: second.metadata.conversationId === first.metadata.conversationId,
    followUpTexts: second.texts,
    messages: state.messages.length,
  };
});
