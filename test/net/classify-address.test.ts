import { describe, expect, it } from "vitest";
import { classifyAddress, hostAddresses, type AddressClass } from "../../src/net/classify-address.js";

describe("classifyAddress", () => {
  it.each<[string, AddressClass]>([
    ["8.8.8.8", "public"],
    ["140.82.112.3", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["100.128.0.1", "public"],
    ["169.254.169.254", "metadata"],
    ["169.254.1.1", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "reserved"],
    ["240.0.0.1", "reserved"],
    ["192.0.0.170", "reserved"],
    ["198.18.0.1", "reserved"],
    ["2606:4700:4700::1111", "public"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["fc00::1", "ula"],
    ["fd12:3456::1", "ula"],
    ["fd00:ec2::254", "metadata"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:8.8.8.8", "public"],
    ["64:ff9b::a00:1", "private"],
    ["2002:c0a8:0101::1", "private"],
    ["2002:0808:0808::1", "public"],
    ["[::1]", "loopback"],
    ["2001:db8::1", "reserved"],
    ["not-an-ip", "reserved"],
    ["999.1.1.1", "reserved"],
  ])("%s is %s", (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });
});

describe("classifyAddress with this machine's own addresses", () => {
  const own = new Set(["100.128.0.1", "2a00:1450:0:0:0:0:0:7"]);
  it.each<[string, AddressClass]>([
    ["100.128.0.1", "host"],
    ["100.128.0.2", "public"],
    ["::ffff:100.128.0.1", "host"],
    ["::ffff:6480:1", "host"],
    ["64:ff9b::100.128.0.1", "host"],
    ["2002:6480:0001::1", "host"],
    ["2a00:1450::7", "host"],
    ["2A00:1450:0000::0007", "host"],
    ["2a00:1450::8", "public"],
    ["127.0.0.1", "loopback"],
  ])("%s is %s", (ip, expected) => {
    expect(classifyAddress(ip, own)).toBe(expected);
  });

  it("reads the interfaces at each call by default (every address of this machine is host or already refused)", () => {
    const addresses = hostAddresses();
    expect(addresses.size).toBeGreaterThan(0);
    for (const a of addresses) expect(classifyAddress(a)).not.toBe("public");
  });
});
