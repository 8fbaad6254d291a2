import {
  currentReclaim2,
  statusReport2,
  statsReport2,
  statusCommand2,
  statsCommand2
} from "./index-7zk2g1wf.js";
export {
  currentReclaim2 as currentReclaim,
  statsCommand2 as statsCommand,
  statsReport2 as statsReport,
  statusCommand2 as statusCommand,
  statusReport2 as statusReport
};
