import { describe, expect, it } from "vitest";
import { isPostedReply, type ListedMessage } from "../../src/shared/is-posted-reply.js";

const since = Date.parse("2026-12-02T08:00:00Z");
const want = { author: "UBOT", text: "Opened the PR.\n\n- tests pass", sinceMs: since };
const ours: ListedMessage = { author: "UBOT", text: want.text, createdAtMs: since + 5_000 };

describe("isPostedReply", () => {
  const cases: Array<[name: string, listed: ListedMessage, expected: boolean, over?: Partial<typeof want>]> = [
    ["our reply, after the run began", ours, true],
    ["our reply, at the instant the run began", { ...ours, createdAtMs: since }, true],
    ["our reply, the vendor rewrote line ends and trailing spaces", { ...ours, text: "Opened the PR.\r\n\r\n- tests pass \n" }, true],
    ["a person's message with the same text", { ...ours, author: "UWRITER" }, false],
    ["an earlier run's identical reply", { ...ours, createdAtMs: since - 1 }, false],
    ["our other message", { ...ours, text: "Opened the PR." }, false],
    ["the same words in another order", { ...ours, text: "- tests pass\n\nOpened the PR." }, false],
    ["no author (a deleted user, an integration)", { ...ours, author: undefined }, false],
    ["no text", { ...ours, text: null }, false],
    ["no creation time", { ...ours, createdAtMs: Number.NaN }, false],
    ["our identity unknown", ours, false, { author: "" }],
    ["the run's start unreadable", ours, false, { sinceMs: Number.NaN }],
    ["an empty reply matches nothing", { ...ours, text: " " }, false, { text: "" }],
    ["ids compare exactly", { ...ours, author: "ubot" }, false],
  ];
  it.each(cases)("%s", (_name, listed, expected, over) => {
    expect(isPostedReply(listed, { ...want, ...over })).toBe(expected);
  });
});
