import { useMutation, useQueryClient } from '@tanstack/react-query';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { setFavourite } from './api.ts';

/** A toggle button (aria-pressed) marking a dashboard as one of the caller's favourites, like Grafana's star. */
export function FavouriteStar({
  id,
  title,
  on,
  onSaid,
}: {
  id: number;
  title: string;
  on: boolean;
  onSaid: (s: string) => void;
}) {
  const client = useQueryClient();
  const toggle = useMutation({
    mutationFn: (next: boolean) => setFavourite(id, next),
    onSuccess: (_, next) => {
      onSaid(next ? `Added "${title}" to your favourites.` : `Removed "${title}" from your favourites.`);
      return client.invalidateQueries({ queryKey: keys.dashboards.lists });
    },
    onError: (e) => onSaid(messageOf(e, 'the favourite could not be saved')),
  });
  // Not disabled while saving (a disabled button would drop the keyboard focus): it shows the state being saved.
  const shown = toggle.isPending ? toggle.variables : on;
  return (
    <button
      type="button"
      className="star"
      aria-pressed={shown}
      aria-label={`Favourite: ${title}`}
      onClick={() => {
        if (!toggle.isPending) toggle.mutate(!shown);
      }}
    >
      <span aria-hidden="true">{shown ? '★' : '☆'}</span>
    </button>
  );
}
