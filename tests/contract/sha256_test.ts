/** The synchronous SHA-256 of contract digests: the same bytes as `crypto.subtle` at every length that matters. */
import assert from "node:assert/strict";
import { sha256 } from "../../src/contract/sha256.ts";
import { sha256Digest } from "../../src/contract/canonical.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

async function subtle(data: Uint8Array<ArrayBuffer>): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", data)));
}

Deno.test("sha256() equals crypto.subtle for every length 0–300 (block and padding boundaries) and a large input", async () => {
  const bytes = new Uint8Array(300);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + 7) & 0xff;
  for (let n = 0; n <= bytes.length; n++) {
    const data = bytes.subarray(0, n);
    assert.equal(hex(sha256(data)), await subtle(data), `length ${n}`);
  }
  const large = new Uint8Array(1 << 20);
  for (let i = 0; i < large.length; i++) large[i] = (i * 7919) & 0xff;
  assert.equal(hex(sha256(large)), await subtle(large));
  assert.equal(hex(sha256(new Uint8Array())), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
});

Deno.test("sha256Digest() is the sha256 of the canonical JSON (sorted keys, multi-byte text) and hops to no worker", async () => {
  const value = { z: ["één", { b: 1, a: "ü" }], a: null };
  const canonical = '{"a":null,"z":["één",{"a":"ü","b":1}]}';
  const expected = "sha256:" + await subtle(new TextEncoder().encode(canonical));
  const fresh = '{"a":null,"fresh":true,"z":["één",{"a":"ü","b":1}]}';
  const expectedFresh = "sha256:" + await subtle(new TextEncoder().encode(fresh));
  const digest = crypto.subtle.digest;
  let hops = 0;
  crypto.subtle.digest = (...args: Parameters<typeof digest>) => (hops++, digest.apply(crypto.subtle, args));
  try {
    assert.equal(await sha256Digest(value), expected);
    assert.equal(await sha256Digest({ ...value, fresh: true }), expectedFresh);
  } finally {
    crypto.subtle.digest = digest;
  }
  assert.equal(hops, 0, "crypto.subtle.digest was called");
});
