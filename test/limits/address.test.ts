// Tests for addressKey: IPv4 kept, IPv4-mapped unwrapped, IPv6 reduced to a normal /64, garbage passed through.

import assert from "node:assert/strict";
import { test } from "node:test";
import { addressKey } from "../../src/limits/address.js";

test("addressKey() keeps an IPv4 address as is", () => {
  assert.equal(addressKey("192.0.2.7"), "192.0.2.7");
  assert.equal(addressKey("127.0.0.1"), "127.0.0.1");
});

test("addressKey() unwraps an IPv4-mapped IPv6 address to its IPv4", () => {
  assert.equal(addressKey("::ffff:192.0.2.7"), "192.0.2.7");
  assert.equal(addressKey("::FFFF:192.0.2.7"), "192.0.2.7");
  assert.equal(addressKey("0:0:0:0:0:ffff:192.0.2.7"), "192.0.2.7");
  assert.equal(addressKey("::ffff:c000:207"), "192.0.2.7");
});

test("addressKey() reduces IPv6 to its /64 prefix in a normal form", () => {
  assert.equal(addressKey("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
  assert.equal(addressKey("2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::/64");
  assert.equal(addressKey("2001:db8::1"), "2001:db8:0:0::/64");
  assert.equal(addressKey("2001:db8:0:0:ffff::"), "2001:db8:0:0::/64");
  assert.equal(addressKey("::1"), "0:0:0:0::/64");
  assert.equal(addressKey("::"), "0:0:0:0::/64");
  assert.equal(addressKey("fe80::1%eth0"), "fe80:0:0:0::/64");
  assert.equal(addressKey("64:ff9b::192.0.2.7"), "64:ff9b:0:0::/64");
});

test("addressKey() gives one key to a whole /64 and different keys to different /64s", () => {
  assert.equal(addressKey("2001:db8:a:b::1"), addressKey("2001:db8:a:b:ffff:ffff:ffff:ffff"));
  assert.notEqual(addressKey("2001:db8:a:b::1"), addressKey("2001:db8:a:c::1"));
});

test("addressKey() returns input that is not an address unchanged, without throwing", () => {
  for (const garbage of ["", "hello", "1:2:3", ":::", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "::g", "::ffff:300.1.1.1", "1.2.3.4::", "1::2:3:4:5:6:7:8"]) {
    assert.equal(addressKey(garbage), garbage, JSON.stringify(garbage));
  }
});
