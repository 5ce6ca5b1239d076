// The arena page's ways of attaching images besides the file picker: a paste (Ctrl+V) of images
// into the prompt box, and a drop of files anywhere on the prompt area. Both hand the files to
// the picker's own file input (the page's one rx.upload, react-dropzone underneath), so every
// way of attaching is filtered, uploaded and checked the same way. Installed once per document.
//
// Reflex runs one upload of an upload id at a time and drops, without a word, one started while
// another is under way; an image pasted or picked while the last was still being checked was
// lost. So every handoff to the picker, the picker's own choices included, waits its turn here:
// the next goes only when the last one's upload has ended.
if (!window.__arenaAttach) {
  window.__arenaAttach = true;
  const TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
  const picker = () => document.querySelector('.arena-pick input[type="file"]');
  const zoneOf = (node) => (node && node.closest ? node.closest('.arena-drop') : null);
  const hasFiles = (e) => !!e.dataTransfer && Array.from(e.dataTransfer.types || []).includes('Files');

  // Whether the drop zone will take any of `files` (its accept and max_size), so that an upload
  // follows the handoff.
  const uploads = (input, files) => {
    const limit = Number(input.closest('[data-max-bytes]')?.dataset.maxBytes || 0);
    return files.some((file) => TYPES.has(file.type) && (!limit || file.size <= limit));
  };

  const waiting = []; // arrays of files, in the order they were given
  let busy = false;
  let guard = null;
  const settle = () => {
    busy = false;
    clearTimeout(guard);
    pump();
  };
  // React reads a file input's change event (react-dropzone's onDrop then sees its files).
  const pump = () => {
    const input = picker();
    if (busy || !waiting.length || !input) return;
    const files = waiting.shift();
    const transfer = new DataTransfer();
    files.forEach((file) => transfer.items.add(file));
    input.files = transfer.files;
    if (uploads(input, files)) {
      busy = true;
      // Only a safeguard: the upload's end is what settles a turn.
      guard = setTimeout(settle, 20000);
    }
    const change = new Event('change', { bubbles: true });
    change.arenaTurn = true;
    input.dispatchEvent(change);
    if (!busy) pump();
  };
  const attach = (files) => {
    if (!files.length) return;
    waiting.push(files);
    pump();
  };

  const open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    this.arenaUpload = /\/_upload\b/.test(String(url));
    return open.call(this, method, url, ...rest);
  };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    if (this.arenaUpload) {
      clearTimeout(guard);
      this.addEventListener('loadend', settle);
    }
    return send.apply(this, args);
  };

  // The picker's own choices join the line too (before React sees them).
  window.addEventListener(
    'change',
    (e) => {
      if (e.arenaTurn || e.target !== picker()) return;
      e.stopImmediatePropagation();
      attach(Array.from(e.target.files || []));
    },
    true,
  );

  document.addEventListener('paste', (e) => {
    if (!zoneOf(e.target) || !picker()) return;
    const files = Array.from((e.clipboardData && e.clipboardData.files) || []);
    const images = files.filter((file) => TYPES.has(file.type));
    if (!images.length) return; // text pastes as text
    e.preventDefault(); // not the image's file name as text
    attach(images);
  });

  document.addEventListener('dragover', (e) => {
    const zone = zoneOf(e.target);
    if (!zone || !hasFiles(e) || !picker()) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    zone.classList.add('arena-drop-active');
  });
  document.addEventListener('dragleave', (e) => {
    const zone = zoneOf(e.target);
    if (zone && !zone.contains(e.relatedTarget)) zone.classList.remove('arena-drop-active');
  });
  document.addEventListener('drop', (e) => {
    const zone = zoneOf(e.target);
    if (!zone || !hasFiles(e) || !picker()) return;
    e.preventDefault(); // the browser would open the file instead
    zone.classList.remove('arena-drop-active');
    attach(Array.from(e.dataTransfer.files));
  });
}
