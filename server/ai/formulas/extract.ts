/**
 * Finding the formula in a text: a user's prompt ("explain =SUMIF(A:A,"North",B:B)") or a model's
 * answer (the formula in a fenced block, as the model is asked to write it).
 */

const FENCED = /```[ \t]*(?:excel|sheets|formula|gsheet|xlsx?)?[ \t]*\r?\n?([\s\S]*?)```/i;
const INLINE_CODE = /`([^`\n]+)`/;
/** A function call at the start: SUM(…), VLOOKUP(…), _xlfn.XLOOKUP(…). */
const CALL_START = /^(?:_xlfn\.)?[A-Za-z][A-Za-z0-9.]*\s*\(/;

/** The first line of a fenced block's content that holds a formula. */
function fromBlock(content: string): string | null {
  const lines = content.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  const formula = lines.find((line) => line.startsWith('=')) ?? lines.find((line) => CALL_START.test(line));
  return formula ?? null;
}

/** The formula a model wrote in a fenced block (or, failing that, a line that starts with `=`). */
export function fencedFormula(answer: string): string | null {
  const block = FENCED.exec(answer);
  if (block) return fromBlock(block[1]!);
  const line = answer.split(/\r?\n/).map((l) => l.trim()).find((l) => /^=\s*\S/.test(l));
  return line ?? null;
}

/**
 * The formula a prompt holds, with or without its `=`: in a fenced block or backticks, after an
 * `=`, or a function call; null when it holds none.
 */
export function formulaInText(text: string): string | null {
  const block = FENCED.exec(text);
  if (block) return fromBlock(block[1]!);
  const inline = INLINE_CODE.exec(text);
  if (inline && (inline[1]!.trim().startsWith('=') || CALL_START.test(inline[1]!.trim()))) return inline[1]!.trim();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    // "=SUM(A1:A3)" or "… this: =A1*2": from the `=` that starts a formula to the end of the line.
    const equals = /(?:^|[\s:(])(=\s*[A-Za-z0-9_$("'{.+-][^\n]*)$/.exec(line);
    if (equals) return trimProse(equals[1]!);
    // A call written without its `=`: a name in capitals (SUM, VLOOKUP) and its parenthesis.
    const call = /(?:^|[\s:])((?:_xlfn\.)?[A-Z][A-Z0-9.]+\([^\n]*)/.exec(line);
    if (call) return trimProse(call[1]!);
  }
  return null;
}

/** Drops what follows a formula on its line: a closing quote or sentence ("…)? please"). */
function trimProse(candidate: string): string {
  let depth = 0;
  let inString = false;
  let end = candidate.length;
  for (let i = 0; i < candidate.length; i++) {
    const char = candidate[i]!;
    if (char === '"') inString = !inString;
    if (inString) continue;
    if (char === '(') depth += 1;
    if (char === ')') {
      depth -= 1;
      if (depth === 0) end = i + 1;
    }
    if (depth === 0 && /[?!]/.test(char) && i > 0) {
      end = Math.min(end, i);
      break;
    }
  }
  // A formula without parentheses (=A1*2) runs to the end of the line, less a final full stop.
  const kept = candidate.includes('(') ? candidate.slice(0, Math.max(end, candidate.indexOf('(') + 1)) : candidate;
  const bare = kept.replace(/[.,;:?!”’]+$/, '').trim();
  // A quote closing the sentence, not a string of the formula.
  return (bare.match(/"/g)?.length ?? 0) % 2 === 1 ? bare.replace(/["']$/, '') : bare;
}
