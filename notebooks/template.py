# %% [markdown]
# # NN · Topic: the question in a few words
#
# **Question.** What a reader tuning an all-flash cluster wants to know, in their words, and which
# published claim or setting it is about.
#
# **Data.** Which tables of the data package (`flashtune.tables.load`), which seed configs
# (`nb.seed_settings`) and which catalog facts the answer uses, and where the source got them.

# %% tags=["parameters"]
# Path to your own benchmark output (anything `flashtune ingest` reads); None = published data only.
results = None

# %%
import altair as alt

from flashtune import nb
from flashtune.tables import load

nb.setup()
reader = nb.reader_results(results)
table = load("claims")  # the tables this topic reads; catalog facts only through nb and flashtune.catalog

# %% [markdown]
# ## Checks: the numbers the text below states
#
# Every number the reading quotes is computed here from the data and checked against the text
# (`nb.check`), or asserted, so the notebook fails when the data or the catalog change under it.

# %%
nb.check("claims in the data package", len(table), len(table))

# %% [markdown]
# ## Chart: one sentence saying what it shows

# %%
chart = alt.Chart(table).mark_bar().encode(x="count():Q", y="topic:N")
nb.with_reader(chart, nb.reader_metric(reader, "iops"), x="count():Q", y="topic:N")

# %% [markdown]
# ## Reading it
#
# What the checks and the chart mean for someone tuning today's releases, in our own words: which
# part of the claim holds, which does not, and why.
#
# ## Knobs this justifies

# %%
nb.knob_table(["osd_memory_target"])

# %% [markdown]
# ## Your results
#
# How to run this notebook on your own results (`results = "fio.json"`), and what is drawn or listed.

# %%
if reader is not None:
    print(reader.groupby(["tool", "metric"]).size())
