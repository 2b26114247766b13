// A deliberately naive, line-by-line transliteration of Biopython ≥1.80 `FastaIterator` /
// `SimpleFastaParser` (Bio/SeqIO/FastaIO.py) over a Python text-mode handle, used as the test oracle:
//
//   for line in handle:                      # universal newlines: \n, \r\n and \r end a line
//       if line[0] == ">": title = line[1:].rstrip(); break      # text before the first '>' is skipped
//   lines = []
//   for line in handle:
//       if line[0] == ">": yield title, "".join(lines).replace(" ", "").replace("\r", ""); ...
//       lines.append(line.rstrip())
//   yield title, ...
//   id = title.split(None, 1)[0]  (or "" for an empty title); description = title
//
// Python's whitespace set is spelled out here independently of the package's implementation.
const PY_WS = '\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';

function rstrip(s: string): string {
  let end = s.length;
  while (end > 0 && PY_WS.includes(s[end - 1])) end--;
  return s.slice(0, end);
}

function splitFirst(s: string): string {
  const words: string[] = [];
  let cur = '';
  for (const ch of s) {
    if (PY_WS.includes(ch)) {
      if (cur) words.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur) words.push(cur);
  return words.length ? words[0] : '';
}

/** Python's TextIOWrapper line iteration with newline=None. */
function universalLines(text: string): string[] {
  const lines: string[] = [];
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\n') {
      lines.push(cur + '\n');
      cur = '';
    } else if (ch === '\r') {
      if (text[i + 1] === '\n') i++;
      lines.push(cur + '\n');
      cur = '';
    } else cur += ch;
  }
  if (cur) lines.push(cur);
  return lines;
}

export function biopythonParse(text: string): Array<{ id: string; description: string; sequence: string }> {
  const lines = universalLines(text);
  const out: Array<{ id: string; description: string; sequence: string }> = [];
  let i = 0;
  let title: string | undefined;
  for (; i < lines.length; i++) {
    if (lines[i][0] === '>') {
      title = rstrip(lines[i].slice(1));
      i++;
      break;
    }
  }
  if (title === undefined) return out;
  let seqLines: string[] = [];
  const emit = (t: string) => {
    const sequence = seqLines.join('').split(' ').join('').split('\r').join('');
    out.push({ id: splitFirst(t), description: t, sequence });
  };
  for (; i < lines.length; i++) {
    if (lines[i][0] === '>') {
      emit(title);
      seqLines = [];
      title = rstrip(lines[i].slice(1));
      continue;
    }
    seqLines.push(rstrip(lines[i]));
  }
  emit(title);
  return out;
}
