/* The light/dark theme and the color-blind card marks, on every page, remembered per browser.
 *
 * Loaded in <head> (not deferred) so the remembered theme applies before the first paint. The
 * choices live on <html> as data-theme ("light" / "dark") and data-colorblind ("1" / "0"); pages
 * that draw cards listen for the "setcards:options" event to redraw them.
 */
(function () {
  "use strict";
  var root = document.documentElement;

  function read(key) {
    try { return window.localStorage.getItem(key); } catch (e) { return null; }
  }
  function write(key, value) {
    try { window.localStorage.setItem(key, value); } catch (e) { /* private mode: no memory */ }
  }

  var theme = read("theme");
  if (theme !== "light" && theme !== "dark") {
    theme = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches
      ? "dark" : "light";
  }
  root.setAttribute("data-theme", theme);
  root.setAttribute("data-colorblind", read("colorBlind") === "1" ? "1" : "0");

  window.SiteOptions = {
    colorBlind: function () { return root.getAttribute("data-colorblind") === "1"; },
    theme: function () { return root.getAttribute("data-theme"); }
  };

  function sync() {
    var themeButton = document.getElementById("theme-toggle");
    var blindButton = document.getElementById("colorblind-toggle");
    var dark = SiteOptions.theme() === "dark";
    if (themeButton) themeButton.setAttribute("aria-pressed", String(dark));
    if (blindButton) blindButton.setAttribute("aria-pressed", String(SiteOptions.colorBlind()));
  }

  document.addEventListener("DOMContentLoaded", function () {
    sync();
    var themeButton = document.getElementById("theme-toggle");
    var blindButton = document.getElementById("colorblind-toggle");
    if (themeButton) {
      themeButton.addEventListener("click", function () {
        var next = SiteOptions.theme() === "dark" ? "light" : "dark";
        root.setAttribute("data-theme", next);
        write("theme", next);
        sync();
      });
    }
    if (blindButton) {
      blindButton.addEventListener("click", function () {
        var next = SiteOptions.colorBlind() ? "0" : "1";
        root.setAttribute("data-colorblind", next);
        write("colorBlind", next);
        sync();
        document.dispatchEvent(new CustomEvent("setcards:options"));
      });
    }
  });
})();
