/* The lobby form's choices as the server judges them (games/option_rules.py, embedded in the
 * page as JSON): which values of each field can be chosen with the others as they are, why the
 * others cannot, and whether the choice can be rated. Pure functions of the document and the
 * form's values, so the form offers only what the server takes without knowing a rule itself.
 *
 * The document (one kind's part): {"choices": [{"fields": {"rules", "mode", "attributes",
 * "length"}, "accepted", "refused", "rated", "unrated"}...], "rated": {"seats", ...}}. */

/** The document's choice for these fields (its "fields" keys), or undefined. */
export function choiceFor(rules, fields) {
  return rules.choices.find((choice) =>
    Object.entries(choice.fields).every(([name, value]) => fields[name] === value),
  );
}

/** The names of the fields a choice is made of. */
export function choiceFields(rules) {
  return rules.choices.length ? Object.keys(rules.choices[0].fields) : [];
}

/** Why `value` of `field` cannot be chosen with the other fields as they are (a sentence of the
 * server's), or null when it can. */
export function refusal(rules, fields, field, value) {
  const choice = choiceFor(rules, {...fields, [field]: value});
  if (!choice) return "The server does not offer this choice.";
  return choice.accepted ? null : choice.refused;
}

/** What the form shows for `values` ({rules, mode, attributes, length, rated, computers}):
 *  - `off`: {field: {value: reason}} for each value that cannot be chosen now;
 *  - `rated`: {disabled, reason}: the Rated box, off when the choice cannot be rated or
 *    more than one computer sits at the table (each computer speed is one bot account, and a
 *    rated table seats an account once);
 *  - `computers`: {reason} when more than one cannot be chosen (the box is ticked). */
export function formState(rules, values, options) {
  const fields = {};
  for (const name of choiceFields(rules)) fields[name] = values[name];
  const off = {};
  for (const [field, choices] of Object.entries(options)) {
    off[field] = {};
    for (const value of choices) {
      const reason = refusal(rules, fields, field, value);
      if (reason !== null) off[field][value] = reason;
    }
  }
  const choice = choiceFor(rules, fields);
  let rated = {disabled: false, reason: null};
  if (!choice || !choice.accepted) rated = {disabled: true, reason: null};
  else if (!choice.rated) rated = {disabled: true, reason: choice.unrated};
  else if (Number(values.computers) > 1) rated = {disabled: true, reason: rules.rated.seats};
  const computers = {reason: values.rated ? rules.rated.seats : null};
  return {off, rated, computers};
}

/** One line per reason for the values of a field that are off: "UltraSet, Puzzle: <reason>". */
export function notes(off, labels = {}) {
  const byReason = new Map();
  for (const [value, reason] of Object.entries(off)) {
    const names = byReason.get(reason) || [];
    names.push(labels[value] || value);
    byReason.set(reason, names);
  }
  return [...byReason].map(([reason, names]) => `${names.join(", ")}: ${reason}`);
}
