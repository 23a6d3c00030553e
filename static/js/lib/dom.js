/* Build elements in a line: el("li", {className: "row", text: "Ann", attrs: {"data-player": "ann"}}, [child...]). */

export function el(tag, {className, text, attrs} = {}, children = []) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
  for (const child of children) node.append(child);
  return node;
}
