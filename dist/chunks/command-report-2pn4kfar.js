import {
  currentReclaim2,
  statusReport2,
  statsReport2,
  statusCommand2,
  statsCommand2
} from "./index-q3b6vzm0.js";
export {
  currentReclaim2 as currentReclaim,
  statsCommand2 as statsCommand,
  statsReport2 as statsReport,
  statusCommand2 as statusCommand,
  statusReport2 as statusReport
};
