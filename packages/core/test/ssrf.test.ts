import { describe, expect, it } from 'vitest';
import { checkTargetUrl, refusedAddressReason, refusedLiteralHost } from '../src/ssrf.js';

const off = { allowPrivateTargets: false };

/**
 * Outgoing targets by address, at save time (checkTargetUrl) and at connect time
 * (refusedLiteralHost: node dials IP literals without a lookup). IPv6 forms that carry an IPv4
 * address are judged by the IPv4 address they reach.
 */
const refused: [string, RegExp][] = [
  ['http://127.0.0.1/', /loopback/],
  ['http://127.1.2.3:8080/x', /loopback/],
  ['http://10.0.0.1/', /private/],
  ['http://172.16.5.4/', /private/],
  ['http://192.168.1.1/', /private/],
  ['http://169.254.169.254/latest/meta-data', /metadata/],
  ['http://169.254.1.1/', /linkLocal/],
  ['http://100.64.0.1/', /carrierGradeNat/],
  ['http://100.100.100.200/', /metadata|carrierGradeNat/],
  ['http://0.0.0.0/', /unspecified/],
  ['http://224.0.0.1/', /multicast/],
  ['http://255.255.255.255/', /broadcast/],
  ['http://240.0.0.1/', /reserved/],
  ['http://[::1]/', /loopback/],
  ['http://[::]/', /unspecified/],
  ['http://[fe80::1]/', /linkLocal/],
  ['http://[fc00::1]/', /uniqueLocal/],
  ['http://[fd00:ec2::254]/', /metadata/],
  ['http://[ff02::1]/', /multicast/],
  // IPv4-mapped
  ['http://[::ffff:127.0.0.1]/', /loopback address \(127\.0\.0\.1 inside/],
  ['http://[::ffff:10.1.2.3]/', /private/],
  ['http://[::ffff:169.254.169.254]/', /metadata/],
  ['http://[::ffff:7f00:1]/', /loopback/],
  // IPv4-compatible (deprecated, still routed by some stacks)
  ['http://[::127.0.0.1]/', /loopback/],
  ['http://[::10.0.0.1]/', /private/],
  ['http://[::169.254.169.254]/', /metadata/],
  ['http://[::192.168.0.1]/', /private/],
  ['http://[::7f00:2]/', /loopback/],
  // SIIT-translated
  ['http://[::ffff:0:127.0.0.1]/', /loopback/],
  ['http://[::ffff:0:a00:1]/', /private/],
  // NAT64 well-known prefix and local-use NAT64
  ['http://[64:ff9b::127.0.0.1]/', /loopback/],
  ['http://[64:ff9b::10.0.0.1]/', /private/],
  ['http://[64:ff9b::a9fe:a9fe]/', /metadata/],
  ['http://[64:ff9b:1::8.8.8.8]/', /local-use NAT64/],
  // 6to4 (2002:AABB:CCDD::)
  ['http://[2002:7f00:1::]/', /loopback/],
  ['http://[2002:a00:1::1]/', /private/],
  ['http://[2002:c0a8:101::]/', /private/],
  ['http://[2002:a9fe:a9fe::]/', /metadata/],
  // Teredo: server 10.0.0.1, or client 127.0.0.1 stored inverted (80ff:fffe)
  ['http://[2001:0:a00:1::1]/', /private/],
  ['http://[2001:0:808:808::80ff:fffe]/', /loopback/],
];

const allowed = [
  'https://8.8.8.8/hook',
  'http://1.1.1.1:8080/',
  'http://[2606:4700:4700::1111]/',
  'http://[::ffff:8.8.8.8]/',
  'http://[64:ff9b::808:808]/',
  'http://[2002:808:808::1]/',
  'http://[2001:0:808:808::f7f7:f7f7]/',
];

describe('SSRF: outgoing targets by address', () => {
  it('has at least 40 cases', () => {
    expect(refused.length + allowed.length).toBeGreaterThanOrEqual(40);
  });

  it.each(refused)('refuses %s at save and at connect time', async (target, reason) => {
    const saved = await checkTargetUrl(target, off);
    expect(saved.ok).toBe(false);
    expect(saved.ok ? '' : saved.message).toMatch(reason);
    const atConnect = refusedLiteralHost(new URL(target), off);
    expect(atConnect?.message).toMatch(reason);
    expect(refusedLiteralHost(new URL(target), { allowPrivateTargets: true })).toBeNull();
  });

  it.each(allowed)('allows the public %s', async (target) => {
    expect(await checkTargetUrl(target, off)).toEqual({ ok: true, url: new URL(target).href });
    expect(refusedLiteralHost(new URL(target), off)).toBeNull();
  });

  it('judges every address a hostname resolves to', async () => {
    const resolveTo = (address: string) => () =>
      Promise.resolve([
        { address: '93.184.216.34', family: 4 },
        { address, family: address.includes(':') ? 6 : 4 },
      ]);
    const saved = await checkTargetUrl('https://hooks.example/x', off, resolveTo('::127.0.0.1'));
    expect(saved).toMatchObject({ ok: false });
    expect(refusedAddressReason('64:ff9b::c0a8:1')).toMatch(/private/);
  });
});
