/**
 * Terminal width of text without loading string-width (docs/bench.md, Cold start): string-width compiles its Unicode
 * property expressions (`\p{RGI_Emoji}` above all) when it loads, which was most of `replay`'s start-up beyond
 * `deno run` itself. Text made only of the characters of {@link SIMPLE_RUNS} — each its own grapheme cluster next to
 * any other, with string-width's own width — is measured here, character by character, with the same result;
 * anything else (emoji sequences, combining marks, escape sequences, scripts not listed) needs string-width, which the
 * commands that render load first ({@link loadFullWidth}). tests/render/text_width_test.ts derives the runs from
 * string-width again and checks any mix of them against it.
 */

/**
 * `first-last:width` (hex code points, `first:width` for one), ascending: ASCII and C0 controls (ESC excluded: it
 * starts an ANSI sequence string-width strips), Latin, Greek, Cyrillic, punctuation, symbols, arrows, box drawing,
 * CJK, kana, Hangul syllables, fullwidth forms.
 */
export const SIMPLE_RUNS =
  "0-1a:0,1c-1f:0,20-7e:1,7f:0,a0-ac:1,ad:0,ae-2ff:1,370-482:1,48a-52f:1,1e00-200a:1,200b:0,200e-200f:0," +
  "2010-2029:1,202a-202e:0,202f-205f:1,2060-206f:0,2070-20cf:1,20f1-2319:1,231a-231b:2,231c-2328:1," +
  "2329-232a:2,232b-23e8:1,23e9-23ec:2,23ed-23ef:1,23f0:2,23f1-23f2:1,23f3:2,23f4-25fc:1,25fd-25fe:2," +
  "25ff-2613:1,2614-2615:2,2616-262f:1,2630-2637:2,2638-2647:1,2648-2653:2,2654-267e:1,267f:2," +
  "2680-2689:1,268a-268f:2,2690-2692:1,2693:2,2694-26a0:1,26a1:2,26a2-26a9:1,26aa-26ab:2,26ac-26bc:1," +
  "26bd-26be:2,26bf-26c3:1,26c4-26c5:2,26c6-26cd:1,26ce:2,26cf-26d3:1,26d4:2,26d5-26e9:1,26ea:2," +
  "26eb-26f1:1,26f2-26f3:2,26f4:1,26f5:2,26f6-26f9:1,26fa:2,26fb-26fc:1,26fd:2,26fe-2704:1,2705:2," +
  "2706-2709:1,270a-270b:2,270c-2727:1,2728:2,2729-274b:1,274c:2,274d:1,274e:2,274f-2752:1,2753-2755:2," +
  "2756:1,2757:2,2758-2794:1,2795-2797:2,2798-27af:1,27b0:2,27b1-27be:1,27bf:2,27c0-2b1a:1,2b1b-2b1c:2," +
  "2b1d-2b4f:1,2b50:2,2b51-2b54:1,2b55:2,2b56-2bff:1,2e80-2e99:2,2e9a:1,2e9b-2ef3:2,2ef4-2eff:1," +
  "2f00-2fd5:2,2fd6-2fef:1,2ff0-3029:2,3030-303e:2,303f-3040:1,3041-3096:2,3097-3098:1,309b-30ff:2," +
  "3100-3104:1,3105-312f:2,3130:1,3131-3163:2,3164:0,3165-318e:2,318f:1,3190-31e5:2,31e6-31ee:1," +
  "31ef-321e:2,321f:1,3220-3247:2,3248-324f:1,3250-a48c:2,a48d-a48f:1,a490-a4c6:2,a4c7-a4cf:1," +
  "ac00-d7a3:2,f900-faff:2,fe10-fe19:2,fe1a-fe1f:1,fe30-fe52:2,fe53:1,fe54-fe66:2,fe67:1,fe68-fe6b:2," +
  "fe6c-fe6f:1,ff01-ff60:2,ff61-ff9d:1,ffa0:0,ffa1-ffdf:1,ffe0-ffe6:2,ffe7-ffee:1";

/** Width per BMP code unit; 255 = not simple. Built on first use. */
let table: Uint8Array | null = null;
const NOT_SIMPLE = 255;

function widths(): Uint8Array {
  if (table) return table;
  const t = new Uint8Array(0x10000).fill(NOT_SIMPLE);
  for (const run of SIMPLE_RUNS.split(",")) {
    const [range, w] = run.split(":") as [string, string];
    const [a, b = a] = range.split("-") as [string, string?];
    t.fill(Number(w), parseInt(a, 16), parseInt(b, 16) + 1);
  }
  return table = t;
}

let full: ((text: string) => number) | null = null;
let loading: Promise<void> | null = null;

/** Load string-width (once) so that any text is measured exactly. Commands that render await it first when needed. */
export function loadFullWidth(): Promise<void> {
  loading ??= import("string-width").then((m) => {
    full = m.default;
  });
  return loading;
}

/** Whether string-width is loaded. */
export function fullWidthLoaded(): boolean {
  return full !== null;
}

/** Whether measuring `text` needs string-width: it holds a character outside {@link SIMPLE_RUNS}. */
export function needsFullWidth(text: string): boolean {
  if (full) return false;
  const t = widths();
  for (let i = 0; i < text.length; i++) if (t[text.charCodeAt(i)] === NOT_SIMPLE) return true;
  return false;
}

/**
 * Display width of `text` in terminal columns, as string-width gives it. Exact whenever string-width is loaded or the
 * text is simple; otherwise (a caller that did not load it first) simple characters count their width, others one
 * column, and string-width starts loading for the next call.
 */
export function textWidth(text: string): number {
  const t = widths();
  let w = 0;
  for (let i = 0; i < text.length; i++) {
    const cw = t[text.charCodeAt(i)]!;
    if (cw !== NOT_SIMPLE) w += cw;
    // Simple text is measured here even once string-width is loaded (the same result, without its segmenter: a
    // 301-row summary table cost 23 ms through it, docs/bench.md).
    else if (full) return full(text);
    else {
      void loadFullWidth();
      const cp = text.codePointAt(i)!;
      if (cp > 0xffff) i++;
      w += 1;
    }
  }
  return w;
}

/** {@link needsFullWidth} of every string inside `value` (an event and its data, at any depth). */
export function needsFullWidthIn(value: unknown): boolean {
  if (full) return false;
  if (typeof value === "string") return needsFullWidth(value);
  if (value === null || typeof value !== "object") return false;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (needsFullWidthIn(v)) return true;
  return false;
}
