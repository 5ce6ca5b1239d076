// Shared by the client scripts: read the job from argv, vote, print one JSON verdict.
//
// Every script is run as `node <script> '<job JSON>'` where the job is
// {"base": "http://127.0.0.1:PORT", "scenario": "turns" | "slot-failure" | "run-error", ...}
// and prints exactly one line: {"ok": true, ...} or {"ok": false, "error": "..."}.

export function job() {
  return JSON.parse(process.argv[2]);
}

export async function vote(base, metadata, choice = "left") {
  const response = await fetch(`${base}/api/arena/vote`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      matchupId: metadata.matchupId,
      matchupToken: metadata.matchupToken,
      vote: choice,
    }),
  });
  if (response.status !== 200) {
    throw new Error(`vote answered ${response.status}: ${await response.text()}`);
  }
  return response.json();
}

export function check(condition, message) {
  if (!condition) throw new Error(message);
}

export async function run(main) {
  try {
    const verdict = await main(job());
    console.log(JSON.stringify({ ok: true, ...verdict }));
  } catch (error) {
    console.log(JSON.stringify({ ok: false, error: String(error?.stack ?? error) }));
  }
  process.exit(0);
}

// A 2x2 PNG (red), as the image scenario attaches it: the mock vision models answer
// "I see 1 image: 1. PNG 2x2, ...".
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==";
