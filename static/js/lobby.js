/* The lobby's "New Set table" form: 5 attributes only for the classic rules, and the speed only
 * matters with computer opponents. The server checks everything again. */
(function () {
  "use strict";
  var form = document.getElementById("table-form");
  if (!form) return;
  var attributes = form.querySelector("#attributes");
  var computers = form.querySelector("#computers");
  var speed = form.querySelector("#speed");

  function update() {
    var rules = form.querySelector("input[name=rules]:checked");
    var classic = !rules || rules.value === "classic";
    Array.prototype.forEach.call(attributes.options, function (option) {
      if (option.getAttribute("data-only") === "classic") option.disabled = !classic;
    });
    if (attributes.selectedOptions[0] && attributes.selectedOptions[0].disabled) {
      attributes.value = "4";
    }
    speed.disabled = computers.value === "0";
  }
  form.addEventListener("change", update);
  form.addEventListener("submit", function () { speed.disabled = false; });
  update();
})();
