// The arena page's ways of attaching images besides the file picker: a paste (Ctrl+V) of images
// into the prompt box, and a drop of files anywhere on the prompt area. Both hand the files to
// the picker's own file input (the page's one rx.upload, react-dropzone underneath), so every
// way of attaching is filtered, uploaded and checked the same way. Installed once per document.
if (!window.__arenaAttach) {
  window.__arenaAttach = true;
  const TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
  const picker = () => document.querySelector('.arena-pick input[type="file"]');
  const zoneOf = (node) => (node && node.closest ? node.closest('.arena-drop') : null);
  const hasFiles = (e) => !!e.dataTransfer && Array.from(e.dataTransfer.types || []).includes('Files');

  // React reads a file input's change event (react-dropzone's onDrop then sees its files).
  const attach = (files) => {
    const input = picker();
    if (!input || !files.length) return;
    const transfer = new DataTransfer();
    files.forEach((file) => transfer.items.add(file));
    input.files = transfer.files;
    input.dispatchEvent(new Event('change', { bubbles: true }));
  };

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
