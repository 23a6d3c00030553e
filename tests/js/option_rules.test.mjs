// The lobby form's choices as the server's option rules allow them (static/js/lib/option_rules.js).
import assert from "node:assert/strict";
import {test} from "node:test";

import {choiceFor, formState, notes, refusal} from "../../static/js/lib/option_rules.js";

const choice = (rules, mode, attributes, length, extra) => ({
  fields: {rules, mode, attributes, length},
  accepted: true, refused: null, rated: length === "full", unrated: length === "full" ? null : "Quick is not rated.",
  ...extra,
});
const MODE_REFUSED = {accepted: false, refused: "Modes are for classic tables.", rated: false, unrated: null};
const RULES = {
  rated: {seats: "Accounts only."},
  choices: [
    choice("classic", "normal", "4", "full"),
    choice("classic", "normal", "4", "quick"),
    choice("classic", "ultra", "4", "full"),
    choice("classic", "ultra", "4", "quick"),
    choice("declare", "normal", "4", "full"),
    choice("declare", "normal", "4", "quick"),
    choice("declare", "ultra", "4", "full", MODE_REFUSED),
    choice("declare", "ultra", "4", "quick", MODE_REFUSED),
  ],
};
const OPTIONS = {rules: ["classic", "declare"], mode: ["normal", "ultra"]};

test("a choice is found by its fields", () => {
  assert.equal(choiceFor(RULES, {rules: "declare", mode: "ultra", attributes: "4", length: "full"}).accepted, false);
  assert.equal(choiceFor(RULES, {rules: "poker", mode: "normal", attributes: "4", length: "full"}), undefined);
});

test("declare + UltraSet cannot be chosen either way, with the server's reason", () => {
  const declare = {rules: "declare", mode: "normal", attributes: "4", length: "full"};
  assert.equal(refusal(RULES, declare, "mode", "ultra"), "Modes are for classic tables.");
  assert.equal(refusal(RULES, declare, "mode", "normal"), null);
  const ultra = formState(RULES, {rules: "classic", mode: "ultra", attributes: "4", length: "full"}, OPTIONS);
  assert.deepEqual(ultra.off.rules, {declare: "Modes are for classic tables."});
  assert.deepEqual(ultra.off.mode, {});
});

test("Rated is off for a quick game, and with more than one computer, saying why", () => {
  const quick = formState(RULES, {rules: "classic", mode: "normal", attributes: "4", length: "quick"}, OPTIONS);
  assert.deepEqual(quick.rated, {disabled: true, reason: "Quick is not rated."});
  const full = {rules: "classic", mode: "normal", attributes: "4", length: "full"};
  assert.deepEqual(formState(RULES, full, OPTIONS).rated, {disabled: false, reason: null});
  // One computer sits at a rated table (its speed's bot account); two would be one account twice.
  assert.deepEqual(formState(RULES, {...full, computers: "1"}, OPTIONS).rated, {disabled: false, reason: null});
  assert.deepEqual(formState(RULES, {...full, computers: "2"}, OPTIONS).rated, {disabled: true, reason: "Accounts only."});
  assert.equal(formState(RULES, {...full, rated: true}, OPTIONS).computers.reason, "Accounts only.");
});

test("the notes group the values off by reason, in the form's words", () => {
  assert.deepEqual(notes({ultra: "A.", chain: "A.", puzzle: "B."}, {ultra: "UltraSet", chain: "Set-Chain"}), [
    "UltraSet, Set-Chain: A.",
    "puzzle: B.",
  ]);
});
