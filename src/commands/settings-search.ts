/**
 * The settings search also finds a setting by the other words it goes by (the README's, the
 * config key): pi's SettingsList filters on labels alone, so `budget` missed the auto-flush budget.
 */
import { fuzzyFilter } from "@earendil-works/pi-tui";
import type { SettingItem, SettingsList } from "@earendil-works/pi-tui";

/** Label matches first, as pi ranks them; then settings whose other words hold every typed word. */
export function filterSettings(items: SettingItem[], query: string, wordsOf: (id: string) => string): SettingItem[] {
  const byLabel = fuzzyFilter(items, query, (item) => item.label);
  const tokens = query.toLowerCase().split(/[\s/]+/).filter((token) => token.length > 0);
  if (tokens.length === 0) return byLabel;
  const byWords = items.filter((item) => {
    const words = `${item.label} ${wordsOf(item.id)}`.toLowerCase();
    return !byLabel.includes(item) && tokens.every((token) => words.includes(token));
  });
  return [...byLabel, ...byWords];
}

interface FilterInternals {
  items: SettingItem[];
  filteredItems: SettingItem[];
  selectedIndex: number;
  applyFilter: (query: string) => void;
}

/** pi 1.6.0's list offers no filter option: its `applyFilter` is replaced on this one instance. */
export function searchSettingsBy(list: SettingsList, wordsOf: (id: string) => string): void {
  const internals = list as unknown as FilterInternals;
  internals.applyFilter = (query) => {
    internals.filteredItems = filterSettings(internals.items, query, wordsOf);
    internals.selectedIndex = 0;
  };
}
