/** The overlay's preset values for the numeric settings (`/pruner settings` cycles them with Enter). */
import { type PresetOption, presetOptions } from "../settings/config-shape.js";

export const MIN_BATCH_CHARS_PRESETS: PresetOption[] = presetOptions(["0", "0 (disabled)"], ["500", "500"], ["1000", "1000 (default)"], ["2000", "2000"], ["5000", "5000"]);
export const RECOVERY_GRACE_PRESETS: PresetOption[] = presetOptions(["0", "0 (disabled)"], ["1", "1"], ["3", "3 (default)"], ["5", "5"], ["8", "8"]);
export const SUMMARIZER_IDLE_TIMEOUT_PRESETS: PresetOption[] = presetOptions(["0", "0 (disabled)"], ["10000", "10s"], ["20000", "20s (default)"], ["45000", "45s"], ["90000", "90s"]);
export const SUMMARIZER_MAX_TIMEOUT_PRESETS: PresetOption[] = presetOptions(["0", "0 (disabled)"], ["120000", "120s"], ["180000", "180s (default)"], ["300000", "300s"], ["600000", "600s"]);
export const AUTO_BUDGET_PRESETS: PresetOption[] = presetOptions(["0", "Off (default)"], ["0.6", "60%"], ["0.7", "70%"], ["0.8", "80%"], ["0.9", "90%"]);
export const ROLLING_WINDOW_PRESETS: PresetOption[] = presetOptions(["1", "1"], ["2", "2"], ["3", "3 (default)"], ["5", "5"], ["10", "10"]);
export const PURGE_COOLDOWN_PRESETS: PresetOption[] = presetOptions(["1", "1"], ["2", "2 (default)"], ["3", "3"], ["5", "5"], ["10", "10"]);
export const PURGE_MIN_ARG_PRESETS: PresetOption[] = presetOptions(["100", "100"], ["500", "500 (default)"], ["1000", "1000"], ["5000", "5000"]);
