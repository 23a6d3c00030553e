/* What every page runs: the header's display buttons. */
import {wireToggles} from "./prefs.js";

wireToggles();
