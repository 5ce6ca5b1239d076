// The words of a streaming answer that its Markdown does not hold yet, as plain text.
//
// The arena state sends an answer's Markdown when a line ends (and a few times a second while its
// words hold Markdown syntax), with `folded`: how much of the answer (in UTF-16 code units) it
// holds. Every token comes sooner through the round's live feed (arena_api/services/live_feeds.py,
// its URL in `feed`), an EventSource shared by the round's two tails; a tail shows its slot's text
// from `folded` on. Either may run ahead of the other: the Markdown never repeats or skips a word,
// only the plain-text tail grows or shrinks. Without the feed the tail stays empty and the answer
// still grows with its Markdown.
//
// The answer's box has a fixed height and scrolls (assets/arena.css), so a word that lengthens
// it lays out that box alone, not the page. While the reader is at its bottom, the box follows
// the answer: one scroll per frame, in the frame's own layout. Scrolling up lets go; scrolling
// back to the bottom follows again.
import { useLayoutEffect, useRef } from "react";

const feeds = new Map(); // url -> {texts, tails, source}

function follow(url) {
  let feed = feeds.get(url);
  if (feed) return feed;
  const source = new EventSource(url);
  feed = { texts: { A: "", B: "" }, tails: new Set(), source };
  source.onmessage = (message) => {
    const { slot, text } = JSON.parse(message.data);
    const start = feed.texts[slot].length;
    feed.texts[slot] += text;
    for (const tail of feed.tails) if (tail.slot === slot) grow(tail, text, start);
  };
  // The round ended. A broken connection reconnects by itself (to this replica or another one)
  // with the last frame's id, and the server sends only what is new; a feed that is gone (404)
  // closes the source.
  source.addEventListener("end", () => source.close());
  feeds.set(url, feed);
  return feed;
}

function unfollow(url, tail) {
  const feed = feeds.get(url);
  if (!feed) return;
  feed.tails.delete(tail);
  if (feed.tails.size === 0) {
    feed.source.close();
    feeds.delete(url);
  }
}

const SLACK_PX = 32; // this close to the bottom counts as at the bottom

function pin(box) {
  const pinned = { box, follow: true, top: 0, frame: 0 };
  pinned.onScroll = () => {
    // Our own scrolls land at `top`; only the reader scrolls above it.
    const bottom = box.scrollTop + box.clientHeight >= box.scrollHeight - SLACK_PX;
    pinned.follow = bottom || box.scrollTop >= pinned.top - 1;
  };
  box.addEventListener("scroll", pinned.onScroll, { passive: true });
  return pinned;
}

function unpin(pinned) {
  pinned.box.removeEventListener("scroll", pinned.onScroll);
  cancelAnimationFrame(pinned.frame);
}

function keepAtBottom(pinned) {
  if (!pinned || !pinned.follow || pinned.frame) return;
  pinned.frame = requestAnimationFrame(() => {
    pinned.frame = 0;
    if (!pinned.follow) return;
    pinned.box.scrollTop = pinned.box.scrollHeight;
    pinned.top = pinned.box.scrollTop;
  });
}

// A tail shows `shown`, the answer's text from `folded` on. A word adds to it (copying the tail,
// never the whole answer); a fold cuts it again from the answer.
function grow(tail, text, start) {
  const skip = tail.folded - start; // the part of the word the Markdown holds already
  if (skip < text.length) show(tail, tail.shown + (skip > 0 ? text.slice(skip) : text));
}

function refold(tail, feed) {
  show(tail, feed ? feed.texts[tail.slot].slice(tail.folded) : "");
}

function show(tail, text) {
  // Set whole, not appended: Chromium shapes an appended piece at once, in the feed's task,
  // where a set text waits for the frame's layout (half the time per word, measured).
  if (tail.shown !== text) tail.node.data = tail.shown = text;
  keepAtBottom(tail.pin);
}

export function LiveTail({ feed: url, slot, folded, code }) {
  const span = useRef(null);
  const tail = useRef(null);
  const pinned = useRef(null);
  useLayoutEffect(() => {
    const box = span.current.closest(".arena-live");
    if (!box) return undefined;
    pinned.current = pin(box);
    return () => unpin(pinned.current);
  }, []);
  useLayoutEffect(() => {
    // A new round starts at its bottom (the end of one keeps where the reader is).
    if (url && pinned.current) Object.assign(pinned.current, { follow: true, top: 0 });
    const current = { slot, folded, node: document.createTextNode(""), shown: "" };
    current.pin = pinned.current;
    span.current.replaceChildren(current.node);
    tail.current = current;
    if (!url) return undefined;
    const feed = follow(url);
    feed.tails.add(current);
    refold(current, feed);
    return () => unfollow(url, current);
  }, [url, slot]);
  useLayoutEffect(() => {
    tail.current.folded = folded;
    refold(tail.current, url ? feeds.get(url) : undefined);
  }, [url, folded]);
  return <span ref={span} className={code ? "arena-tail arena-tail-code" : "arena-tail"} />;
}
