import { link, useRoute } from '../state/route';
import { Title } from './common';
import { CashiersPanel, ProductsPanel } from './PosCatalog';
import { LanesPanel, ZPanel } from './PosLanes';
import './operations.css';

const TABS = [
  ['products', 'Products'],
  ['cashiers', 'Cashiers'],
  ['lanes', 'Lanes'],
  ['z', 'Z reports'],
] as const;

/** Point of sale administration: the catalog, cashiers, lanes and Z report history, each tab with a URL of its own. */
export function PosSection({ rest }: { rest: string[] }) {
  const go = useRoute((s) => s.go);
  const tab = TABS.find(([k]) => k === rest[0])?.[0] ?? 'products';
  return (
    <section className="bo-section">
      <Title>Point of sale</Title>
      <div className="bo-tabs" role="tablist" aria-label="Point of sale">
        {TABS.map(([k, label]) => (
          <button key={k} type="button" role="tab" aria-selected={k === tab} onClick={() => go(link('pos', k))}>
            {label}
          </button>
        ))}
      </div>
      {tab === 'products' && <ProductsPanel />}
      {tab === 'cashiers' && <CashiersPanel />}
      {tab === 'lanes' && <LanesPanel />}
      {tab === 'z' && <ZPanel rest={rest.slice(1)} />}
    </section>
  );
}
