/**
 * The forms a secret's value takes when its host reflects it encoded, not
 * as is: a JSON string (`"`, `\`, control characters escaped; `/` as `\/`
 * as PHP writes it; non-ASCII as `\uXXXX` as Python writes it), a URL
 * (percent-encoded, upper or lower hex, with or without `/` and `!'()*`
 * left as they are), base64 (standard or URL-safe, the value at any of the
 * three offsets in a longer encoded text: HTTP Basic auth's `user:value`
 * echoed back), and hex. Pure. The response redactor
 * (egress-response-redact.ts) masks each form as it masks the value.
 *
 * Not covered, and said so in the README: any other transformation (a
 * hash, a cipher, a value cut in pieces, reversed, or compressed — a
 * compressed answer is refused), and a value shorter than
 * ENCODED_FORMS_MIN_BYTES, whose encoded forms would match too much of an
 * unrelated body to be masked.
 */

/** A value this long at least gets its encoded forms masked too; a shorter one only as is. */
export const ENCODED_FORMS_MIN_BYTES = 8;
/** A base64 run this long at least is masked (the part of an offset value's encoding that depends on the value alone). */
const BASE64_MIN_CHARS = 8;

/** Every form of `value` to mask, each once, as latin1 text of its bytes; the value's own UTF-8 bytes first. */
export function secretValueForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms = [bytes.toString('latin1')];
  if (bytes.length < ENCODED_FORMS_MIN_BYTES) return forms;
  forms.push(...jsonForms(value), ...percentForms(bytes), ...base64Forms(bytes), bytes.toString('hex'), bytes.toString('hex').toUpperCase());
  return [...new Set(forms)];
}

/** JSON string contents: the standard escapes, with `/` as `\/` too, and with non-ASCII as lower-hex `\uXXXX` too. */
function jsonForms(value: string): string[] {
  const plain = JSON.stringify(value).slice(1, -1);
  const ascii = plain.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
  return [plain, ascii].flatMap((form) => [utf8(form), utf8(form.replace(/\//g, '\\/'))]);
}

/** Percent-encodings: every byte but RFC 3986's unreserved ones, or also leaving `!'()*` (encodeURIComponent) or `/` (Python's quote). */
function percentForms(bytes: Buffer): string[] {
  const encode = (keep: RegExp) =>
    [...bytes]
      .map((b) => (b < 0x80 && keep.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
      .join('');
  const upper = [/[A-Za-z0-9_.~-]/, /[A-Za-z0-9_.~!'()*-]/, /[A-Za-z0-9_.~/-]/].map(encode);
  return [...upper, ...upper.map((form) => form.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()))];
}

/**
 * Base64 of the value at offsets 0, 1 and 2 within a longer encoded text, standard and URL-safe: for each, the
 * characters that depend on the value's bytes alone (a prefix's bytes change the characters their group shares).
 */
function base64Forms(bytes: Buffer): string[] {
  const forms: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Characters [start, end) encode only the value's bits: skip the groups the offset's zero bytes share,
    // and stop before the last group when the value does not end it (the next bytes of the text would change it).
    const start = offset === 0 ? 0 : 4;
    const whole = Math.floor((offset + bytes.length) / 3) * 4;
    const core = encoded.slice(start, whole);
    // And the value ending the text (the encoding ends with it): its last group, padding left off, is the value's alone.
    const atEnd = encoded.slice(start).replace(/=+$/, '');
    for (const form of new Set([core, atEnd])) {
      if (form.length < BASE64_MIN_CHARS) continue;
      forms.push(form, form.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return forms;
}
