/* The lobby's "New Set table" form: 5 attributes only for the classic rules, and the speed only
 * matters with computer opponents. The server checks everything again. */

const form = document.getElementById("table-form");
if (form) {
  const attributes = form.querySelector("#attributes");
  const computers = form.querySelector("#computers");
  const speed = form.querySelector("#speed");

  const update = () => {
    const rules = form.querySelector("input[name=rules]:checked");
    const classic = !rules || rules.value === "classic";
    for (const option of attributes.options) {
      if (option.dataset.only === "classic") option.disabled = !classic;
    }
    if (attributes.selectedOptions[0]?.disabled) attributes.value = "4";
    speed.disabled = computers.value === "0";
  };
  form.addEventListener("change", update);
  form.addEventListener("submit", () => {
    speed.disabled = false;
  });
  update();
}
