#!/usr/bin/python3
"""Writes the .h5ad and Cell Ranger .h5 fixtures of datasets/h5_test.go
from the shared MTX data sets, with Debian's anndata 0.8 and h5py 3.7
(apt-get install python3-anndata python3-h5py):

    /usr/bin/python3 datasets/testdata/h5/make_fixtures.py ../shared/data datasets/testdata/h5

Every fixture is a subset of one shared set (cells every STEP-th, genes the
first few), so h5_test.go checks it against the MTX original read through
datasets.Open, matching cells by barcode and genes by id.
"""
import gzip
import sys

import anndata
import h5py
import numpy as np
import pandas as pd
import scipy.io
import scipy.sparse as sp

src, out = sys.argv[1], sys.argv[2]


def read_mtx(name):
    d = f"{src}/{name}"
    x = scipy.io.mmread(gzip.open(f"{d}/matrix.mtx.gz")).T.tocsr()  # cells x genes
    feats = [l.rstrip("\n").split("\t") for l in gzip.open(f"{d}/features.tsv.gz", "rt")]
    bcs = [l.rstrip("\n").split("\t")[0] for l in gzip.open(f"{d}/barcodes.tsv.gz", "rt")]
    lab = pd.read_csv(f"{d}/labels.tsv", sep="\t", dtype=str).set_index("barcode")["label"]
    return x, [f[0] for f in feats], [f[1] for f in feats], bcs, lab


def subset(name, step, genes):
    x, ids, names, bcs, lab = read_mtx(name)
    cells = np.arange(0, x.shape[0], step)
    g = np.arange(min(genes, x.shape[1]))
    x = x[cells][:, g]
    bcs = [bcs[i] for i in cells]
    return x, [ids[j] for j in g], [names[j] for j in g], bcs, lab.loc[bcs].values


# 1. pbmc_csr.h5ad: X CSR, log1p of counts per 10^4 (non-counts, as after
# scanpy's normalize_total + log1p); raw.X the counts; a categorical obs
# column, a numeric one and a string one.
x, ids, names, bcs, lab = subset("pbmc_4k", 60, 1000)
x = x.astype(np.float32)
norm = sp.diags(1e4 / np.maximum(np.asarray(x.sum(axis=1)).ravel(), 1)) @ x
norm = norm.tocsr().astype(np.float32)
norm.data = np.log1p(norm.data)
obs = pd.DataFrame({
    "cell_type": pd.Categorical(lab),
    "n_counts": np.asarray(x.sum(axis=1)).ravel(),
    "donor": ["d%d" % (i % 2) for i in range(len(bcs))],
}, index=bcs)
var = pd.DataFrame({"gene_ids": ids}, index=names)
a = anndata.AnnData(X=norm, obs=obs, var=var)
a.raw = anndata.AnnData(X=x, obs=obs, var=var)
a.write_h5ad(f"{out}/pbmc_csr.h5ad", compression="gzip")

# 2. pbmc_dense.h5ad: X dense counts, fewer cells.
x, ids, names, bcs, lab = subset("pbmc_4k", 60, 2000)
obs = pd.DataFrame({"cell_type": pd.Categorical(lab)}, index=bcs)
a = anndata.AnnData(X=x.toarray().astype(np.float32), obs=obs, var=pd.DataFrame(index=names))
a.write_h5ad(f"{out}/pbmc_dense.h5ad", compression="gzip")

# 3. cellbench_csc.h5ad: X CSC integer counts, 800 genes, one cell without
# a label (a NaN category, code -1).
x, ids, names, bcs, lab = subset("cellbench_dropseq_3cl", 2, 800)
lab = pd.Categorical(lab)
codes = lab.codes.copy()
codes[3] = -1
obs = pd.DataFrame({"cell_line": pd.Categorical.from_codes(codes, lab.categories)}, index=bcs)
a = anndata.AnnData(X=x.tocsc().astype(np.int32), obs=obs, var=pd.DataFrame(index=ids), dtype=np.int32)
a.write_h5ad(f"{out}/cellbench_csc.h5ad", compression="gzip")

# 4. pbmc_10x.h5: a Cell Ranger 3 filtered_feature_bc_matrix.h5 (CSC genes x
# cells, fixed-length byte strings) with two antibody features after the
# genes, which a reader of the gene expression must leave out.
x, ids, names, bcs, lab = subset("pbmc_4k", 25, 2000)
adt = sp.csr_matrix(np.arange(2 * x.shape[0], dtype=np.int32).reshape(x.shape[0], 2) % 7)
full = sp.hstack([x, adt]).tocsr().astype(np.int32)  # cells x features = CSC features x cells
full.sort_indices()
ids2 = ids + ["CD3_TotalSeqB", "CD4_TotalSeqB"]
types = ["Gene Expression"] * len(ids) + ["Antibody Capture"] * 2
with h5py.File(f"{out}/pbmc_10x.h5", "w") as f:
    m = f.create_group("matrix")
    kw = dict(compression="gzip", shuffle=True)
    m.create_dataset("barcodes", data=np.array(bcs, dtype="S"), **kw)
    m.create_dataset("data", data=full.data, **kw)
    m.create_dataset("indices", data=full.indices.astype(np.int64), **kw)
    m.create_dataset("indptr", data=full.indptr.astype(np.int64), **kw)
    m.create_dataset("shape", data=np.array([full.shape[1], full.shape[0]], dtype=np.int32))
    ft = m.create_group("features")
    ft.create_dataset("id", data=np.array(ids2, dtype="S"), **kw)
    ft.create_dataset("name", data=np.array(ids2, dtype="S"), **kw)
    ft.create_dataset("feature_type", data=np.array(types, dtype="S"), **kw)
    ft.create_dataset("genome", data=np.array(["GRCh38"] * len(ids2), dtype="S"), **kw)
    ft.create_dataset("_all_tag_keys", data=np.array(["genome"], dtype="S"))
    f.attrs["filetype"] = "matrix"
    f.attrs["version"] = 2

# 5. fuzz_seed.h5ad: a small uncompressed CSR file with contiguous datasets,
# whose raw data FuzzH5 overwrites (its metadata stays intact).
x, ids, names, bcs, lab = subset("pbmc_4k", 200, 60)
obs = pd.DataFrame({"cell_type": pd.Categorical(lab)}, index=bcs)
a = anndata.AnnData(X=x.astype(np.float32), obs=obs, var=pd.DataFrame(index=ids))
a.write_h5ad(f"{out}/fuzz_seed.h5ad")
# anndata writes sparse arrays chunked (resizable); rewrite them contiguous.
with h5py.File(f"{out}/fuzz_seed.h5ad", "r+") as f:
    for k in ("data", "indices", "indptr"):
        v = f["X"][k][()]
        del f["X"][k]
        f["X"].create_dataset(k, data=v)

# 6. fuzz_seed_10x.h5: the same for the Cell Ranger reader, with one
# antibody feature.
x, ids, names, bcs, lab = subset("pbmc_4k", 400, 40)
full = sp.hstack([x, sp.csr_matrix(np.ones((x.shape[0], 1), dtype=np.int32))]).tocsr().astype(np.int32)
with h5py.File(f"{out}/fuzz_seed_10x.h5", "w") as f:
    m = f.create_group("matrix")
    m.create_dataset("barcodes", data=np.array(bcs, dtype="S"))
    m.create_dataset("data", data=full.data)
    m.create_dataset("indices", data=full.indices.astype(np.int64))
    m.create_dataset("indptr", data=full.indptr.astype(np.int64))
    m.create_dataset("shape", data=np.array([full.shape[1], full.shape[0]], dtype=np.int32))
    ft = m.create_group("features")
    ft.create_dataset("id", data=np.array(ids + ["ADT1"], dtype="S"))
    ft.create_dataset("name", data=np.array(names + ["ADT1"], dtype="S"))
    ft.create_dataset("feature_type", data=np.array(["Gene Expression"] * len(ids) + ["Antibody Capture"], dtype="S"))

# 7. legacy07.h5ad: the layout of anndata 0.7, written by hand: X with
# h5sparse_format and h5sparse_shape, a categorical obs column as codes with
# its categories in obs/__categories.
x, ids, names, bcs, lab = subset("pbmc_4k", 300, 50)
x = x.astype(np.float32).tocsr()
cats = sorted(set(lab), key=int)
with h5py.File(f"{out}/legacy07.h5ad", "w") as f:
    X = f.create_group("X")
    X.attrs["h5sparse_format"] = "csr"
    X.attrs["h5sparse_shape"] = np.array(x.shape)
    X.create_dataset("data", data=x.data)
    X.create_dataset("indices", data=x.indices)
    X.create_dataset("indptr", data=x.indptr)
    s = h5py.string_dtype()
    for name, index in (("obs", bcs), ("var", ids)):
        g = f.create_group(name)
        g.attrs["_index"] = "index"
        g.attrs["encoding-type"] = "dataframe"
        g.create_dataset("index", data=np.array(index, dtype=object), dtype=s)
    f["obs"].attrs["column-order"] = np.array(["louvain"], dtype=object)
    f["obs"].create_dataset("louvain", data=np.array([cats.index(l) for l in lab], dtype=np.int8))
    f["obs"].create_group("__categories").create_dataset("louvain", data=np.array(cats, dtype=object), dtype=s)
