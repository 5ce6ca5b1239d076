// The arena page's keyboard, installed once per document however often the page mounts (a file
// of its own, so the Content-Security-Policy needs no exception for inline scripts).

// Keys 1-5 press the matching vote button, unless the person is typing.
if (!window.__arenaVoteKeys) {
  window.__arenaVoteKeys = true;
  document.addEventListener('keydown', (e) => {
    const tag = (e.target && e.target.tagName) || '';
    if (tag === 'TEXTAREA' || tag === 'INPUT' || e.ctrlKey || e.metaKey || e.altKey) return;
    const button = document.getElementById('vote-key-' + e.key);
    if (button && !button.disabled) button.click();
  });
}

// Enter sends, as in every chat UI; Shift+Enter is a new line. Never while an input method is
// composing (Enter then picks a candidate), and never while a round streams (the Send button is
// not there). The debounced box sends its value on Enter before this runs (react-debounce-input's
// forceNotifyByEnter), so the round starts with everything typed.
if (!window.__arenaEnterSends) {
  window.__arenaEnterSends = true;
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || e.shiftKey || e.isComposing || e.keyCode === 229) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const box = e.target;
    if (!box || !box.matches || !box.matches('textarea[data-testid="prompt"]')) return;
    e.preventDefault();
    const send = document.querySelector('[data-testid="send"]');
    // Something to ask: words, or an attached image alone.
    const asked = box.value.trim() !== '' || document.querySelector('[data-testid="pending-image"]');
    if (send && !send.disabled && asked) send.click();
  });
}
